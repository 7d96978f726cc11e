/**
 * tRPC setup: the context (built once per request from the one credential resolver, server/auth) and
 * the procedure builders that narrow the caller: public → instance | user → orgMember → orgAdmin, and admin.
 * Errors: procedures and the domain throw DomainError; the base middleware turns it into the tRPC
 * error and the formatter words every error the way errors.ts does for REST.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { credentialFromHeaders, resolveCredential, type HeaderReader } from '../auth/credentials';
import { DomainError, forbidden, unauthenticated } from '../domain/errors';
import { isPlatformAdmin, type Principal } from '../domain/principal';
import { isDatabaseUnavailable } from '../db/client';
import { noteCaller, type Caller } from '../log';
import { describeIssues, toHttpError, toTRPCError, type IssueLike } from './errors';
import { LONE_SURROGATE } from './schemas/support';
import type { ResponseCachePolicy } from './responseCache';

export interface Context {
  principal: Principal;
  headers: HeaderReader;
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

/** The context of a caller already resolved. */
export function contextFor(principal: Principal, headers: HeaderReader): Context {
  const readEffects: (() => void)[] = [];
  return { principal, headers, readEffects, repeatOnCachedRead: (effect) => readEffects.push(effect) };
}

function callerOf(p: Principal): Caller {
  if (p.kind === 'instance') return { kind: 'instance', id: p.keyId };
  if (p.kind === 'user') return { kind: 'user', id: p.userId };
  return { kind: 'anonymous' };
}

/** Resolves the caller; a refused credential is thrown as the tRPC error of its code. */
export async function createContext(headers: HeaderReader, opts: ContextOptions = {}): Promise<Context> {
  try {
    const principal = await resolveCredential(credentialFromHeaders(headers, opts));
    noteCaller(callerOf(principal));
    return contextFor(principal, headers);
  } catch (err) {
    throw toTRPCError(err);
  }
}

const t = initTRPC
  .meta<HubMeta>()
  .context<Context>()
  .create({
    errorFormatter({ shape, error }) {
      const { stack: _stack, ...data } = shape.data;
      const answer = toHttpError(error);
      return { ...shape, message: answer.message, data: answer.issues ? { ...data, issues: answer.issues } : data };
    },
  });

/** Why PostgreSQL text cannot store `s` (a NUL, or an unpaired surrogate, which has no UTF-8 form), or null. */
function unstorable(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain NUL characters (\\u0000)';
  return LONE_SURROGATE.test(s) ? 'must not contain unpaired surrogates' : null;
}

// eslint-disable-next-line no-control-regex -- showing NUL (and lone surrogates) escaped is the point
const shownKey = (key: string) => key.replace(/[\u0000\uD800-\uDFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The first string (value or key) of a JSON-like input PostgreSQL cannot store, as an issue naming it, or null. */
function unstorableIssue(value: unknown, path: string[] = [], depth = 0): IssueLike | null {
  if (typeof value === 'string') {
    const message = unstorable(value);
    return message ? { path, message } : null;
  }
  if (typeof value !== 'object' || value === null || depth > 32) return null;
  for (const [key, item] of Object.entries(value)) {
    const message = unstorable(key);
    if (message) return { path: [...path, shownKey(key)], message };
    const found = unstorableIssue(item, [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every procedure: a DomainError thrown below becomes the tRPC error of its code. */
export const publicProcedure = t.procedure.use(async ({ next, getRawInput }) => {
  // Refused here, for every procedure and field, with the field named: else PostgreSQL fails the write (a 500).
  const issue = unstorableIssue(await getRawInput());
  if (issue) throw new TRPCError({ code: 'BAD_REQUEST', message: describeIssues([issue]) });
  const result = await next();
  if (!result.ok && (result.error.cause instanceof DomainError || isDatabaseUnavailable(result.error.cause))) throw toTRPCError(result.error.cause);
  return result;
});

export const userProcedure = publicProcedure.use(({ ctx, next }) => {
  const p = ctx.principal;
  if (p.kind === 'anonymous') unauthenticated('Sign in required: send a Hub JWT as Bearer token');
  if (p.kind !== 'user') forbidden('This endpoint needs a user token (Hub JWT); instance keys are not accepted');
  return next({ ctx: { ...ctx, user: p } });
});

export const orgMemberProcedure = userProcedure.use(({ ctx, next }) => {
  const { orgId, orgRole } = ctx.user;
  if (!orgId || !orgRole) forbidden('You do not belong to an organization');
  return next({ ctx: { ...ctx, org: { id: orgId, role: orgRole } } });
});

export const orgAdminProcedure = orgMemberProcedure.use(({ ctx, next }) => {
  if (ctx.org.role !== 'admin') forbidden('Only organization admins may do this');
  return next();
});

export const adminProcedure = userProcedure.use(({ ctx, next }) => {
  if (!isPlatformAdmin(ctx.user)) forbidden('Platform admin role required');
  return next();
});

export const instanceProcedure = publicProcedure.use(({ ctx, next }) => {
  const p = ctx.principal;
  if (p.kind === 'anonymous') unauthenticated('An instance key (svh_) is required');
  if (p.kind !== 'instance') forbidden('This endpoint accepts only instance keys (svh_)');
  return next({ ctx: { ...ctx, instance: p } });
});
