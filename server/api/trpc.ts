/**
 * tRPC setup: the context (one credential resolver for every surface) and the procedure builders
 * that narrow the caller: public → instance | user → orgMember → orgAdmin, and admin.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import { credentialFromHeaders, resolveCredential } from '../domain/credentials';
import { isPlatformAdmin, type Principal } from '../domain/principal';
import { describeIssues } from './errors';
import type { ResponseCachePolicy } from './responseCache';

export interface Context {
  principal: Principal;
  headers: Headers;
  /** Response headers a procedure may set (ETag, Cache-Control, Retry-After). */
  resHeaders: Headers;
  /** Effects of a read that must happen again whenever its answer is served from the response cache. */
  repeatOnCachedRead: (effect: () => void) => void;
  readEffects: (() => void)[];
}

/** Procedure meta: the OpenAPI mapping, and whether REST may serve the answer from the response cache. */
export type HubMeta = OpenApiMeta & { responseCache?: ResponseCachePolicy };

export interface ContextOptions {
  /** The dashboard authenticates with its session cookie; REST accepts only the Authorization header. */
  allowSessionCookie?: boolean;
}

export async function createContext(headers: Headers, opts: ContextOptions = {}): Promise<Context> {
  const principal = await resolveCredential(credentialFromHeaders(headers, opts));
  const readEffects: (() => void)[] = [];
  return { principal, headers, resHeaders: new Headers(), readEffects, repeatOnCachedRead: (effect) => readEffects.push(effect) };
}

const t = initTRPC
  .meta<HubMeta>()
  .context<Context>()
  .create({
    errorFormatter({ shape, error }) {
      const { stack: _stack, ...data } = shape.data;
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        // Never leak SQL, stack traces or driver messages; the log has the details.
        return { ...shape, message: 'Internal server error', data };
      }
      if (error.cause instanceof ZodError) {
        return { ...shape, message: describeIssues(error.cause.issues), data: { ...data, issues: error.cause.issues } };
      }
      return { ...shape, data };
    },
  });

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure;

export const userProcedure = t.procedure.use(({ ctx, next }) => {
  const p = ctx.principal;
  if (p.kind === 'anonymous') throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in required: send a Hub JWT as Bearer token' });
  if (p.kind !== 'user') throw new TRPCError({ code: 'FORBIDDEN', message: 'This endpoint needs a user token (Hub JWT); instance keys are not accepted' });
  return next({ ctx: { ...ctx, user: p } });
});

export const orgMemberProcedure = userProcedure.use(({ ctx, next }) => {
  const { orgId, orgRole } = ctx.user;
  if (!orgId || !orgRole) throw new TRPCError({ code: 'FORBIDDEN', message: 'You do not belong to an organization' });
  return next({ ctx: { ...ctx, org: { id: orgId, role: orgRole } } });
});

export const orgAdminProcedure = orgMemberProcedure.use(({ ctx, next }) => {
  if (ctx.org.role !== 'admin') throw new TRPCError({ code: 'FORBIDDEN', message: 'Only organization admins may do this' });
  return next();
});

export const adminProcedure = userProcedure.use(({ ctx, next }) => {
  if (!isPlatformAdmin(ctx.user)) throw new TRPCError({ code: 'FORBIDDEN', message: 'Platform admin role required' });
  return next();
});

export const instanceProcedure = t.procedure.use(({ ctx, next }) => {
  const p = ctx.principal;
  if (p.kind === 'anonymous') throw new TRPCError({ code: 'UNAUTHORIZED', message: 'An instance key (svh_) is required' });
  if (p.kind !== 'instance') throw new TRPCError({ code: 'FORBIDDEN', message: 'This endpoint accepts only instance keys (svh_)' });
  return next({ ctx: { ...ctx, instance: p } });
});
