/**
 * The Hub's adapter of the one error model (@shared/ops: ServiceError, the code table, toWireError). What is
 * the Hub's own stays here: tRPC's errors in and out (toTRPCError, trpcErrorHeaders), the current request's id,
 * the log and the statement-timeout metric. REST, /api/trpc, the export route, /metrics, /mcp refusals and the
 * Node bridge all answer errors through it.
 */
import {
  DATABASE_UNAVAILABLE_MESSAGE,
  ERROR_STATUS,
  errorAnswer,
  errorBody as bodyWithId,
  isValidationError,
  ServiceError,
  toWireError,
  TransportError,
  WIRE_CODE,
  type ErrorAnswer,
  type ErrorBody,
  type ErrorCode,
  type ErrorHooks,
  type WireError,
} from '@shared/ops';
import { TRPCError } from '@trpc/server';
import { isDatabaseUnavailable, isStatementTimeout } from '../db/client';
import { hubMetrics } from '../metrics';
import { currentRequest, requestLogger } from '../log';

export { describeIssues, TransportError, type IssueLike } from '@shared/ops';
export type { ErrorBody, ErrorCode };

/** A failure classified for the wire (@shared/ops WireError). */
export type HttpError = WireError;

const hooks: ErrorHooks = {
  isDatabaseUnavailable,
  // tRPC wraps what a procedure threw; the cause says what it was. tRPC's own refusals keep their code.
  translate(err) {
    if (!(err instanceof TRPCError)) return err;
    if (err.cause instanceof ServiceError || isValidationError(err.cause)) return err.cause;
    if (err.code !== 'INTERNAL_SERVER_ERROR' && err.code in ERROR_STATUS)
      return new TransportError(err.code as ErrorCode, err.message);
    return err.cause ?? err;
  },
};

/** Any failure classified: status, code, message, headers (no logging). */
export function toHttpError(err: unknown): HttpError {
  const e = toWireError(err, hooks);
  if (e.kind === 'outage' && isStatementTimeout(err)) hubMetrics.statementTimeout();
  return e;
}

/** The tRPC error of a domain error (procedure middleware); other errors pass unchanged. */
export function toTRPCError(err: unknown): unknown {
  // tRPC answers 503 for it too (the message and Retry-After come from toHttpError).
  if (isDatabaseUnavailable(err))
    return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: DATABASE_UNAVAILABLE_MESSAGE, cause: err });
  if (!(err instanceof ServiceError)) return err;
  return new TRPCError({ code: WIRE_CODE[err.code], message: err.message, cause: err });
}

/** The id error bodies carry: the current request's (server/log.ts), which every answer's X-Request-Id also has. */
export function currentRequestId(): string {
  return currentRequest()?.requestId ?? 'none';
}

/** The JSON body of an error answer, with the current request's id. */
export function errorBody(e: HttpError): ErrorBody {
  return bodyWithId(e, currentRequestId());
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

/** Logs an outage (a warning) or an unexpected failure (an error, with the details) once, with where it happened. */
export function logUnexpected(where: string, e: HttpError) {
  if (e.kind === 'unexpected') requestLogger().error({ err: e.cause, where }, 'request failed');
  else if (e.kind === 'outage') requestLogger().warn({ where }, e.message);
}

/** The wire answer of any error (@shared/ops errorAnswer): status, headers, body with the request id; logged once. */
export function hubErrorAnswer(err: unknown, where: string): ErrorAnswer {
  const answer = errorAnswer(err, currentRequestId(), { ...hooks, log: (e) => logUnexpected(where, e) });
  if (answer.error.kind === 'outage' && isStatementTimeout(err)) hubMetrics.statementTimeout();
  return answer;
}

/** The HTTP answer of any error: `{code, message, request_id}` (+ reason, issues), status and headers from the table. */
export function errorResponse(
  err: unknown,
  where: string,
  headers: (e: HttpError) => Record<string, string> = () => ({}),
): Response {
  const answer = hubErrorAnswer(err, where);
  return Response.json(answer.body, {
    status: answer.status,
    headers: { ...answer.headers, ...headers(answer.error) },
  });
}
