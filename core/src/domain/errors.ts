/**
 * The domain's one error type, shared with the Hub (@shared/ops ServiceError): rules throw it with a code
 * from the closed set; the one table (WIRE_CODE) and api/errors.ts turn it into HTTP answers. Nothing here
 * knows HTTP. `reason` carries the Hub's fault of a failed sync (key_refused, rejected, unavailable);
 * `subject` the machine token a refusal is about (for the audit line).
 */
import { ServiceError } from '@shared/ops';

export { ServiceError, type ServiceErrorCode, type ServiceErrorOptions } from '@shared/ops';

export const notFound = (what: string) => new ServiceError('not_found', `${what} not found`);
export const unauthenticated = (message = 'missing or invalid credentials') =>
  new ServiceError('unauthenticated', message);

/** Unique-constraint violations of PostgreSQL and PGlite, possibly wrapped by drizzle. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (e.code === '23505') return true;
  }
  return false;
}

/** The database cannot be reached (down, restarting, refusing connections): a 503, not a bug. */
export { isDatabaseUnavailable } from '@shared/ops';
