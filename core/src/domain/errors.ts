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
    readonly details: {
      retryAfterSeconds?: number;
      machineTokenId?: string;
      hubFault?: 'key_refused' | 'rejected' | 'unavailable';
      /** Validation failures: each offending field and what is wrong with it. */
      issues?: { path: (string | number)[]; message: string }[];
    } = {},
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

/** The database cannot be reached (down, restarting, refusing connections): a 503, not a bug. */
export { isDatabaseUnavailable } from '@shared/ops';
