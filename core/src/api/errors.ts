/**
 * The one place where failures become HTTP answers `{code, message}`: the domain's CoreError, zod
 * validation errors (naming the fields, unknown ones included), Hono's own HTTP errors (malformed
 * JSON, body too large). Anything else is a 500 with a generic message; the details go to the log.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { CoreError, isDatabaseUnavailable, type ErrorCode } from '../domain/errors';
import type { Logger } from '../log';

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  bad_gateway: 502,
  internal: 500,
};

export const TEMPORARY_ADMIN_WARNING =
  'You are signed in as the temporary admin from SVC_TEMP_ADMIN_USERNAME/SVC_TEMP_ADMIN_PASSWORD. Create permanent admin accounts, then remove these variables and restart Core.';

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

export const validationError = (error: z.ZodError) => new CoreError('invalid_request', describeZodError(error));

export function errorResponse(err: unknown, c: Context, log: Logger): Response {
  let error: CoreError;
  if (err instanceof CoreError) error = err;
  else if (err instanceof z.ZodError) error = validationError(err);
  else if (err instanceof HTTPException && err.status < 500) {
    const code: ErrorCode = err.status === 401 ? 'unauthorized' : err.status === 404 ? 'not_found' : 'invalid_request';
    return c.json({ code, message: err.message || 'bad request' }, err.status as ContentfulStatusCode);
  } else if (isDatabaseUnavailable(err)) {
    log.error('database unavailable', { method: c.req.method, path: c.req.path, error: describeInternal(err) });
    error = new CoreError('unavailable', 'the database is unavailable; try again shortly');
  } else {
    log.error('unhandled error', { method: c.req.method, path: c.req.path, error: describeInternal(err) });
    error = new CoreError('internal', 'internal error');
  }
  if (error.code === 'unauthorized') c.header('WWW-Authenticate', 'Bearer realm="core"');
  if (error.details.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.details.retryAfterSeconds));
  if (error.code === 'unavailable') c.header('Retry-After', '5');
  return c.json({ code: error.code, message: error.message }, STATUS[error.code]);
}

/** What the log may say about an unexpected error: no query parameters (they can hold secrets). */
function describeInternal(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined, i = 0; e && i < 3; e = e.cause as typeof e, i++) {
    parts.push(String(e.message ?? e).replace(/\nparams:[\s\S]*$/, ''));
  }
  return parts.join(' <- ');
}
