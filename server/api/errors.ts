/**
 * The one error mapper. The domain throws DomainError (server/domain/errors.ts), zod reports invalid
 * input, tRPC wraps both; this module turns any of them into the tRPC error (toTRPCError) and into the
 * HTTP answer `{code, message, request_id}` (toHttpError, errorResponse) with the status table below. REST, /api/trpc,
 * the export route, /mcp refusals and the Node bridge all answer errors through it. Anything else is a
 * bug or an outage: logged, answered 500 without details (never SQL, stacks or driver messages).
 */
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '@shared/ops';
import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { isDatabaseUnavailable, isStatementTimeout } from '../db/client';
import { hubMetrics } from '../metrics';
import { currentRequest, requestLogger } from '../log';
import { DomainError, type DomainErrorCode } from '../domain/errors';

/** Seconds a client should wait before retrying while the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
const DATABASE_UNAVAILABLE = 'The database is unavailable; retry later';

/** The `code` of every JSON error body (tRPC's names) and its HTTP status: the one table of both services. */
const STATUS = ERROR_STATUS;
export type { ErrorCode };

const FROM_DOMAIN: Record<DomainErrorCode, ErrorCode> = {
  invalid: 'BAD_REQUEST',
  unauthenticated: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  too_large: 'PAYLOAD_TOO_LARGE',
  rate_limited: 'TOO_MANY_REQUESTS',
};

/** One wording for validation errors on every surface: the message names each offending field. */
export interface IssueLike {
  path?: readonly PropertyKey[];
  message: string;
}

export function describeIssues(issues: readonly IssueLike[]): string {
  const parts = issues.slice(0, 5).map((issue) => {
    const field = (issue.path ?? []).map(String).join('.');
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return `Invalid input: ${parts.join('; ')}${more}`;
}

/** An error of the transport itself (unparsable body, wrong media type, no such route). */
export class TransportError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface HttpError {
  status: number;
  code: ErrorCode;
  message: string;
  issues?: readonly IssueLike[];
  reason?: string;
  headers: Record<string, string>;
  /** The original failure when it is not one the caller may see (500): for the log. */
  unexpected?: unknown;
}

export function toHttpError(err: unknown): HttpError {
  if (isDatabaseUnavailable(err)) {
    if (isStatementTimeout(err)) hubMetrics.statementTimeout();
    // An outage, not a bug: retry later (logged as a warning with the request id).
    const headers = { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) };
    return { status: 503, code: 'SERVICE_UNAVAILABLE', message: DATABASE_UNAVAILABLE, headers };
  }
  // tRPC wraps what a procedure threw; the cause says what it was.
  const inner =
    err instanceof TRPCError && err.cause && (err.cause instanceof DomainError || err.cause instanceof ZodError)
      ? err.cause
      : err;
  if (inner instanceof DomainError) {
    const code = FROM_DOMAIN[inner.code];
    const headers: Record<string, string> =
      inner.retryAfterSeconds !== undefined ? { 'retry-after': String(inner.retryAfterSeconds) } : {};
    return { status: STATUS[code], code, message: inner.message, reason: inner.reason, headers };
  }
  if (inner instanceof ZodError) {
    return {
      status: 400,
      code: 'BAD_REQUEST',
      message: describeIssues(inner.issues),
      issues: inner.issues,
      headers: {},
    };
  }
  if (inner instanceof TransportError)
    return { status: STATUS[inner.code], code: inner.code, message: inner.message, headers: {} };
  if (inner instanceof TRPCError && inner.code !== 'INTERNAL_SERVER_ERROR' && inner.code in STATUS) {
    const code = inner.code as ErrorCode;
    return { status: STATUS[code], code, message: inner.message, headers: {} };
  }
  const unexpected = inner instanceof TRPCError && inner.cause ? inner.cause : inner;
  return { status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', headers: {}, unexpected };
}

/** The tRPC error of a domain error (procedure middleware); other errors pass unchanged. */
export function toTRPCError(err: unknown): unknown {
  // tRPC answers 503 for it too (the message and Retry-After come from toHttpError).
  if (isDatabaseUnavailable(err))
    return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: DATABASE_UNAVAILABLE, cause: err });
  if (!(err instanceof DomainError)) return err;
  return new TRPCError({ code: FROM_DOMAIN[err.code], message: err.message, cause: err });
}

/** The error body of both services (Core's too): tRPC's code names, the message, the request id, the issues. */
export type { ErrorBody };

/** The id error bodies carry: the current request's (server/log.ts), which every answer's X-Request-Id also has. */
export function currentRequestId(): string {
  return currentRequest()?.requestId ?? 'none';
}

/** The JSON body of an error answer. */
export function errorBody(e: HttpError): ErrorBody {
  return {
    code: e.code,
    message: e.message,
    request_id: currentRequestId(),
    ...(e.reason ? { reason: e.reason } : {}),
    ...(e.issues ? { issues: e.issues } : {}),
  };
}

/**
 * tRPC's responseMeta: the headers of the answer's errors (Retry-After of a 503 or a 429), as REST sends them.
 * tRPC words the body (the errorFormatter) and sets the status; only the headers are left to say.
 */
export function trpcErrorHeaders({ errors }: { errors: readonly unknown[] }): { headers?: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (const err of errors) Object.assign(headers, toHttpError(err).headers);
  return Object.keys(headers).length > 0 ? { headers: { ...headers, 'cache-control': 'no-store' } } : {};
}

/** Logs an unexpected failure once, with where it happened. */
export function logUnexpected(where: string, e: HttpError) {
  if (e.status === 500) requestLogger().error({ err: e.unexpected, where }, 'request failed');
  else if (e.status === 503) requestLogger().warn({ where }, e.message);
}

/** The HTTP answer of any error: `{code, message}` (+ reason, issues), status and headers from the table. */
export function errorResponse(
  err: unknown,
  where: string,
  headers: (e: HttpError) => Record<string, string> = () => ({}),
): Response {
  const e = toHttpError(err);
  logUnexpected(where, e);
  return Response.json(errorBody(e), {
    status: e.status,
    headers: { 'cache-control': 'no-store', ...e.headers, ...headers(e) },
  });
}
