/**
 * The one place where failures become HTTP answers, for every transport (REST, /mcp, the probes, the
 * fallbacks): the domain's CoreError, zod validation errors (naming the fields, unknown ones included),
 * Hono's own HTTP errors (malformed JSON), transport refusals (no route, body too large) and database
 * outages (503 with Retry-After). Anything else is a 500 with a generic message; the details go to the log.
 *
 * Every error body has one shape, the Hub's too (docs/errors-and-packages.md):
 *   {"code": "NOT_FOUND", "message": "...", "request_id": "...", "issues"?: [...]}
 * with tRPC's code names; the request id is the one in the answer's X-Request-Id header.
 */
import { withRequestId } from '@shared/logger';
import { ERROR_CODES, ERROR_STATUS, type ErrorBody, type ErrorCode } from '@shared/ops';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { CoreError, isDatabaseUnavailable, type ErrorCode as DomainErrorCode } from '../domain/errors';
import type { Logger } from '../log';

/** Seconds a client should wait before retrying while the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The `code` of every JSON error body (tRPC's names, as the Hub answers) and its HTTP status: one table for both. */
const STATUS: Record<ErrorCode, ContentfulStatusCode> = ERROR_STATUS;
export { ERROR_CODES, type ErrorCode };

const FROM_DOMAIN: Record<DomainErrorCode, ErrorCode> = {
  invalid_request: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  rate_limited: 'TOO_MANY_REQUESTS',
  unavailable: 'SERVICE_UNAVAILABLE',
  bad_gateway: 'BAD_GATEWAY',
  internal: 'INTERNAL_SERVER_ERROR',
};

export const TEMPORARY_ADMIN_WARNING =
  'You are signed in as the temporary admin from SVC_TEMP_ADMIN_USERNAME/SVC_TEMP_ADMIN_PASSWORD. Create permanent admin accounts, then remove these variables and restart Core.';

export interface Issue {
  path: (string | number)[];
  message: string;
}

export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const at = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        const names = issue.keys.map((k) => (at ? `${at}.${k}` : k)).join(', ');
        return `unknown field${issue.keys.length > 1 ? 's' : ''}: ${names}`;
      }
      return `${at || 'body'}: ${issue.message}`;
    })
    .join('; ');
}

const issuesOf = (error: z.ZodError): Issue[] =>
  error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'number' ? p : String(p))), message: i.message }));

export const validationError = (error: z.ZodError) =>
  new CoreError('invalid_request', describeZodError(error), { issues: issuesOf(error) });

/** A refusal of the transport itself (no such route, body too large, wrong method). */
export class TransportError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface HttpError {
  status: ContentfulStatusCode;
  code: ErrorCode;
  message: string;
  issues?: Issue[];
  headers: Record<string, string>;
  /** How the log should treat it: an outage (warn) or a bug (error with the details). */
  log?: 'outage' | 'unexpected';
}

/** Any failure as its HTTP answer: status, code, message and headers from the one table. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof CoreError) {
    const code = FROM_DOMAIN[err.code];
    const headers: Record<string, string> = {};
    if (code === 'UNAUTHORIZED') headers['WWW-Authenticate'] = 'Bearer realm="core"';
    if (err.details.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.details.retryAfterSeconds);
    else if (code === 'SERVICE_UNAVAILABLE') headers['Retry-After'] = String(DATABASE_RETRY_AFTER_SECONDS);
    const issues = err.details.issues ? { issues: err.details.issues } : {};
    return { status: STATUS[code], code, message: err.message, headers, ...issues };
  }
  if (err instanceof z.ZodError) return toHttpError(validationError(err));
  if (err instanceof TransportError)
    return { status: STATUS[err.code], code: err.code, message: err.message, headers: {} };
  if (err instanceof HTTPException && err.status < 500) {
    const code: ErrorCode =
      err.status === 401
        ? 'UNAUTHORIZED'
        : err.status === 404
          ? 'NOT_FOUND'
          : err.status === 413
            ? 'PAYLOAD_TOO_LARGE'
            : 'BAD_REQUEST';
    return { status: STATUS[code], code, message: err.message || 'bad request', headers: {} };
  }
  if (isDatabaseUnavailable(err)) {
    const headers = { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) };
    return {
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'the database is unavailable; try again shortly',
      headers,
      log: 'outage',
    };
  }
  return { status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'internal error', headers: {}, log: 'unexpected' };
}

/** The JSON body of an error answer: the one shape of both services. */
export function errorBody(e: HttpError, requestId: string): ErrorBody {
  return { code: e.code, message: e.message, request_id: requestId, ...(e.issues ? { issues: e.issues } : {}) };
}

/** The answer to any failure on any route: logged once when it is not the caller's fault. */
export function errorResponse(err: unknown, c: Context, log: Logger): Response {
  const e = toHttpError(err);
  const requestId = (c.get('requestId') as string | undefined) ?? 'none';
  if (e.log) {
    const fields = { method: c.req.method, path: c.req.path, error: describeInternal(err) };
    if (e.log === 'outage') withRequestId(log, requestId).warn(fields, 'database unavailable');
    else withRequestId(log, requestId).error(fields, 'unhandled error');
  }
  for (const [name, value] of Object.entries(e.headers)) c.header(name, value);
  c.header('Cache-Control', 'no-store');
  return c.json(errorBody(e, requestId), e.status);
}

/** What the log may say about an unexpected error: no query parameters (they can hold secrets). */
export function describeInternal(err: unknown): string {
  const parts: string[] = [];
  for (
    let e = err as { message?: string; cause?: unknown } | undefined, i = 0;
    e && i < 3;
    e = e.cause as typeof e, i++
  ) {
    parts.push(String(e.message ?? e).replace(/\nparams:[\s\S]*$/, ''));
  }
  return parts.join(' <- ');
}
