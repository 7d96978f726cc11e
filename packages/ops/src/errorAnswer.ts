/**
 * The one function from any failure to the wire answer of both services: status, headers and the body
 * {code, message, request_id, reason?, issues?}. A ServiceError, a TransportError and a zod error are the
 * caller's (their message is shown); a database outage is a 503 with Retry-After; anything else is a bug,
 * answered 500 without details (never SQL, stacks or driver messages) and handed to the service's log hook.
 */
import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorIssue } from './errors';
import { isDatabaseUnavailable } from './outage';
import { isValidationError, ServiceError, TransportError, validationError, WIRE_CODE } from './serviceError';

/** Seconds a client should wait before retrying a 503 that does not say otherwise (a database outage). */
export const RETRY_AFTER_SECONDS = 5;
export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable; retry later';
export const INTERNAL_MESSAGE = 'Internal server error';

/** A failure classified for the wire, before the body is written. */
export interface WireError {
  status: number;
  code: ErrorCode;
  message: string;
  reason?: string;
  issues?: readonly ErrorIssue[];
  headers: Record<string, string>;
  /** refusal: the caller's (or a dependency's, named) failure; outage: the database; unexpected: a bug. */
  kind: 'refusal' | 'outage' | 'unexpected';
  /** What failed, for the log of an outage or a bug (never sent). */
  cause?: unknown;
}

/** What a service adds: its framework's own errors, its outage test, its headers and its log. */
export interface ErrorHooks {
  /** The service's own error kinds (tRPC's, Hono's) as one this model knows; others unchanged. */
  translate?: (err: unknown) => unknown;
  /** Default: the package's isDatabaseUnavailable. */
  isDatabaseUnavailable?: (err: unknown) => boolean;
  /** Headers to add to an answer (e.g. a WWW-Authenticate challenge on a 401). */
  headers?: (e: WireError) => Record<string, string>;
  /** Logs an outage (a warning) or an unexpected failure (an error, with the details); errorAnswer calls it. */
  log?: (e: WireError) => void;
}

const retryAfter = (seconds: number) => ({ 'retry-after': String(seconds) });

/** Any failure classified: code, status, message, headers (no logging). */
export function toWireError(err: unknown, hooks: ErrorHooks = {}): WireError {
  const unavailable = hooks.isDatabaseUnavailable ?? isDatabaseUnavailable;
  const wire = classify(err, hooks, unavailable);
  return hooks.headers ? { ...wire, headers: { ...wire.headers, ...hooks.headers(wire) } } : wire;
}

function classify(err: unknown, hooks: ErrorHooks, unavailable: (err: unknown) => boolean): WireError {
  // An outage first: whatever wraps it (drizzle, tRPC), the caller should retry, not see a 500.
  if (unavailable(err)) {
    const headers = retryAfter(RETRY_AFTER_SECONDS);
    return {
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: DATABASE_UNAVAILABLE_MESSAGE,
      headers,
      kind: 'outage',
      cause: err,
    };
  }
  let inner = hooks.translate ? hooks.translate(err) : err;
  if (isValidationError(inner)) inner = validationError(inner.issues, inner);
  if (inner instanceof ServiceError) {
    const code = WIRE_CODE[inner.code];
    const seconds = inner.retryAfterSeconds ?? (code === 'SERVICE_UNAVAILABLE' ? RETRY_AFTER_SECONDS : undefined);
    return {
      status: ERROR_STATUS[code],
      code,
      message: inner.message,
      ...(inner.reason ? { reason: inner.reason } : {}),
      ...(inner.issues ? { issues: inner.issues } : {}),
      headers: seconds === undefined ? {} : retryAfter(seconds),
      kind: inner.code === 'internal' ? 'unexpected' : 'refusal',
      ...(inner.code === 'internal' ? { cause: inner } : {}),
    };
  }
  if (inner instanceof TransportError) {
    return { status: ERROR_STATUS[inner.code], code: inner.code, message: inner.message, headers: {}, kind: 'refusal' };
  }
  return {
    status: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: INTERNAL_MESSAGE,
    headers: {},
    kind: 'unexpected',
    cause: inner,
  };
}

/** The body of an error answer, with the request's id (the one in its X-Request-Id header). */
export function errorBody(e: WireError, requestId: string): ErrorBody {
  return {
    code: e.code,
    message: e.message,
    request_id: requestId,
    ...(e.reason ? { reason: e.reason } : {}),
    ...(e.issues ? { issues: e.issues } : {}),
  };
}

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
  /** The classification, for a caller that needs more than the answer (a tool result, a metric). */
  error: WireError;
}

/**
 * The wire answer of any failure: status, headers (Retry-After, Cache-Control: no-store, the hooks') and
 * the body with `requestId`. An outage or a bug goes to `hooks.log` once.
 */
export function errorAnswer(err: unknown, requestId: string, hooks: ErrorHooks = {}): ErrorAnswer {
  const e = toWireError(err, hooks);
  if (e.kind !== 'refusal') hooks.log?.(e);
  return {
    status: e.status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...e.headers },
    body: errorBody(e, requestId),
    error: e,
  };
}
