/**
 * The domain's one error type. Rules throw CoreError with a code; api/errors.ts alone turns codes
 * into HTTP answers. Nothing here knows HTTP.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable'
  | 'bad_gateway'
  | 'internal';

export class CoreError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { retryAfterSeconds?: number; machineTokenId?: string; hubFault?: 'key_refused' | 'rejected' | 'unavailable' } = {},
  ) {
    super(message);
    this.name = 'CoreError';
  }
}

export const notFound = (what: string) => new CoreError('not_found', `${what} not found`);
export const unauthorized = (message = 'missing or invalid credentials') => new CoreError('unauthorized', message);

/** Unique-constraint violations of PostgreSQL and PGlite, possibly wrapped by drizzle. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (e.code === '23505') return true;
  }
  return false;
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', '53300', '3D000', '57P01', '57P02', '57P03']);

/** The database cannot be reached (down, restarting, refusing connections): a 503, not a bug. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: string; message?: string; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && /not currently accepting connections/.test(e.message)) return true;
  }
  return false;
}
