/**
 * Core's adapter of the one error model (@shared/ops: ServiceError, the code table, toWireError,
 * errorAnswer), for every transport (REST, /mcp, the probes, the fallbacks). What is Core's own stays here:
 * Hono's HTTP errors (malformed JSON), the WWW-Authenticate challenge of a 401, the request id Hono holds and
 * the log. Anything the model does not know is a 500 with a generic message; the details go to the log.
 *
 * Every error body has one shape, the Hub's too (docs/errors-and-packages.md):
 *   {"code": "NOT_FOUND", "message": "...", "request_id": "...", "reason"?: "...", "issues"?: [...]}
 */
import { withRequestId } from '@shared/logger';
import {
  ERROR_CODES,
  errorAnswer,
  TransportError,
  validationError as sharedValidationError,
  type ErrorCode,
  type ErrorHooks,
} from '@shared/ops';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { Logger } from '../log';

export { TransportError } from '@shared/ops';
export { ERROR_CODES, type ErrorCode };

export const TEMPORARY_ADMIN_WARNING =
  'You are signed in as the temporary admin from SVC_TEMP_ADMIN_USERNAME/SVC_TEMP_ADMIN_PASSWORD. ' +
  'Create permanent admin accounts, then remove these variables and restart Core.';

/** A zod failure as the domain's error (400): the one wording, each offending field in `issues`. */
export const validationError = (error: z.ZodError) => sharedValidationError(error.issues, error);

const HONO_CODE: Record<number, ErrorCode> = { 401: 'UNAUTHORIZED', 404: 'NOT_FOUND', 413: 'PAYLOAD_TOO_LARGE' };

const hooks: ErrorHooks = {
  // Hono's own refusals (a malformed JSON body): the caller's, with Hono's message.
  translate: (err) =>
    err instanceof HTTPException && err.status < 500
      ? new TransportError(HONO_CODE[err.status] ?? 'BAD_REQUEST', err.message || 'bad request')
      : err,
  headers: (e): Record<string, string> =>
    e.code === 'UNAUTHORIZED' ? { 'WWW-Authenticate': 'Bearer realm="core"' } : {},
};

/** The answer to any failure on any route: logged once when it is not the caller's fault. */
export function errorResponse(err: unknown, c: Context, log: Logger): Response {
  const requestId = (c.get('requestId') as string | undefined) ?? 'none';
  const answer = errorAnswer(err, requestId, {
    ...hooks,
    log: (e) => {
      const fields = { method: c.req.method, path: c.req.path, error: describeInternal(e.cause ?? err) };
      if (e.kind === 'outage') withRequestId(log, requestId).warn(fields, 'database unavailable');
      else withRequestId(log, requestId).error(fields, 'unhandled error');
    },
  });
  for (const [name, value] of Object.entries(answer.headers)) if (name !== 'content-type') c.header(name, value);
  return c.json(answer.body, answer.status as ContentfulStatusCode);
}

/** What the log may say about an unexpected error: no query parameters (they can hold secrets). */
function describeInternal(err: unknown): string {
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
