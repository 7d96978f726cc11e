/**
 * tRPC setup: the context (built once per request from the one credential resolver, server/auth) and
 * the procedure builders that narrow the caller: public → instance | user → orgMember → orgAdmin, and admin.
 * Errors: procedures and the domain throw ServiceError; the base middleware turns it into the tRPC
 * error and the formatter words every error the way errors.ts does for REST.
 */
import { findUnstorableIssue } from '@shared/ops';
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { credentialFromHeaders, resolveCredentialNow, type HeaderReader } from '../auth/credentials';
import { config } from '../config';
import { ServiceError, forbidden, unauthenticated } from '../domain/errors';
import { isPlatformAdmin, type Principal } from '../domain/principal';
import { isDatabaseUnavailable } from '../db/client';
import { noteCaller, type Caller } from '../log';
import { sourceAddress } from './clientAddress';
import { currentRequestId, describeIssues, toHttpError, toTRPCError, trpcErrorHeaders, type IssueLike } from './errors';
import { admit, limitSubjectOf, RateLimitRefusal, rateLimitHeaders } from './rateLimit';
import type { ReadEffect, ResponseCachePolicy } from './responseCache';

export type { ReadEffect };

/** How the caller's credential came: the Authorization header, the dashboard's session cookie, or none. */
export type CredentialCarrier = 'bearer' | 'session_cookie' | 'none';

export interface Context {
  principal: Principal;
  carrier: CredentialCarrier;
  headers: HeaderReader;
  /**
   * Effects of a read (counting a download, a poll) that REST runs after each answer it sends, also when
   * served from the response cache, with the caller of that request and the answer's status (304 included).
   */
  repeatOnCachedRead: (effect: ReadEffect) => void;
  readEffects: ReadEffect[];
}

/**
 * Procedure meta: the OpenAPI mapping, whether REST may serve the answer from the response cache, and whether
 * the credential is optional (a publicProcedure: its document says so, server/api/openapi.ts).
 */
export type HubMeta = OpenApiMeta & { responseCache?: ResponseCachePolicy; credentialOptional?: true };

export interface ContextOptions {
  /** The dashboard authenticates with its session cookie; REST accepts only the Authorization header. */
  allowSessionCookie?: boolean;
}

/** The context of a caller already resolved. */
export function contextFor(principal: Principal, headers: HeaderReader, carrier: CredentialCarrier = 'none'): Context {
  const readEffects: ReadEffect[] = [];
  return { principal, carrier, headers, readEffects, repeatOnCachedRead: (effect) => readEffects.push(effect) };
}

function callerOf(p: Principal): Caller {
  if (p.kind === 'instance') return { kind: 'instance', id: p.keyId };
  if (p.kind === 'user') return { kind: 'user', id: p.userId };
  return { kind: 'anonymous' };
}

/**
 * Resolves the caller; a refused credential is thrown as the domain's error (ServiceError), as by the resolver.
 * Synchronous when the credential needs no look-up (anonymous, a cached instance key): then no promise is made.
 */
export function createContext(headers: HeaderReader, opts: ContextOptions = {}): Context | Promise<Context> {
  const credential = credentialFromHeaders(headers, opts);
  const principal = resolveCredentialNow(credential);
  // How the credential came: minting an API token needs a browser session (browserSessionProcedure).
  const carrier = headers.get('authorization') !== null ? 'bearer' : credential !== null ? 'session_cookie' : 'none';
  const resolved = (p: Principal) => {
    noteCaller(callerOf(p));
    return contextFor(p, headers, carrier);
  };
  return principal instanceof Promise ? principal.then(resolved) : resolved(principal);
}

/**
 * The tRPC adapter's context, under the same rate limits as REST and /mcp (admit: per address, the
 * failed-credential budget, per credential or anonymous). tRPC answers only its own errors with their status,
 * so a refusal is mapped here; trpcResponseMeta adds Retry-After and the RateLimit headers.
 */
export async function createTRPCContext(headers: HeaderReader, opts: ContextOptions = {}): Promise<Context> {
  try {
    const address = sourceAddress(headers)?.ip ?? 'unknown';
    const hasCredential = credentialFromHeaders(headers, opts) !== null;
    return (
      await admit(
        address,
        hasCredential,
        () => createContext(headers, opts),
        (ctx) => limitSubjectOf(ctx.principal),
      )
    ).caller;
  } catch (err) {
    throw toTRPCError(err);
  }
}

/** tRPC's responseMeta: the error's headers as REST sends them (Retry-After; RateLimit on a 429). */
export function trpcResponseMeta({ errors }: { errors: readonly TRPCError[] }): { headers?: Record<string, string> } {
  const meta = trpcErrorHeaders({ errors });
  const refusal = errors.map((e) => e.cause).find((c): c is RateLimitRefusal => c instanceof RateLimitRefusal);
  return refusal ? { headers: { ...meta.headers, ...rateLimitHeaders(refusal.status) } } : meta;
}

const t = initTRPC
  .meta<HubMeta>()
  .context<Context>()
  .create({
    errorFormatter({ shape, error }) {
      const { stack: _stack, ...data } = shape.data;
      const answer = toHttpError(error);
      const withId = { ...data, request_id: currentRequestId() };
      return { ...shape, message: answer.message, data: answer.issues ? { ...withId, issues: answer.issues } : withId };
    },
  });

const shownKey = (key: string) =>
  // eslint-disable-next-line no-control-regex -- showing NUL (and lone surrogates) escaped is the point
  key.replace(/[\u0000\uD800-\uDFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The first string (value or key) of a JSON-like input PostgreSQL cannot store, or nesting deeper than the limit,
 * as an issue naming it, or null: the check both services run (@shared/ops), a field name shown escaped.
 */
function unstorableIssue(value: unknown): IssueLike | null {
  const issue = findUnstorableIssue(value);
  if (!issue) return null;
  const path = issue.key ? [...issue.path.slice(0, -1), shownKey(issue.path.at(-1)!)] : issue.path;
  return { path, message: issue.message };
}

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every procedure: a ServiceError thrown below becomes the tRPC error of its code. */
export const publicProcedure = t.procedure.use(async ({ next, getRawInput }) => {
  // Refused here, for every procedure and field, with the field named: else PostgreSQL fails the write (a 500).
  const issue = unstorableIssue(await getRawInput());
  if (issue) throw toTRPCError(new ServiceError('invalid', describeIssues([issue]), { issues: [issue] }));
  const result = await next();
  if (!result.ok && (result.error.cause instanceof ServiceError || isDatabaseUnavailable(result.error.cause)))
    throw toTRPCError(result.error.cause);
  return result;
});

export const userProcedure = publicProcedure.use(({ ctx, next }) => {
  const p = ctx.principal;
  if (p.kind === 'anonymous') unauthenticated('Sign in required: send a Hub JWT as Bearer token');
  if (p.kind !== 'user') forbidden('This endpoint needs a user token (Hub JWT); instance keys are not accepted');
  return next({ ctx: { ...ctx, user: p } });
});

/**
 * A person at the dashboard: the session cookie, sent by a page of the Hub's own origin (Origin, or
 * Sec-Fetch-Site: same-origin). What a script's bearer token must never do - mint its own successor - goes here.
 */
export const browserSessionProcedure = userProcedure.use(({ ctx, next }) => {
  if (ctx.carrier !== 'session_cookie') {
    forbidden(
      'Only a signed-in browser session on the dashboard may do this; a bearer token cannot (it would mint its own successor)',
    );
  }
  const origin = ctx.headers.get('origin');
  const sameOrigin =
    origin !== null ? origin === new URL(config.hubUrl).origin : ctx.headers.get('sec-fetch-site') === 'same-origin';
  if (!sameOrigin) forbidden(`Only a page of this Hub (${new URL(config.hubUrl).origin}) may do this with its session`);
  return next();
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
