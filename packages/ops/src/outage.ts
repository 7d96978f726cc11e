/**
 * Whether a failure means the database is unavailable (down, restarting, refusing connections, a statement
 * cut by statement_timeout) rather than "this query is wrong": the caller should retry later (503 +
 * Retry-After), not see a 500. Works on postgres.js's and PGlite's errors, wrapped by drizzle (`cause`).
 */

/** Driver and socket errors of an unreachable server (postgres.js's own codes included). */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * SQLSTATEs: class 08 (connection exception) is matched by its prefix; 57P01-57P03 a server shutting down or
 * starting; 53300 too many connections; 57014 a statement cancelled (statement_timeout); 3D000 the database
 * does not exist (dropped or not created yet).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '3D000']);

/** PostgreSQL's words when a database refuses connections (ALTER DATABASE … ALLOW_CONNECTIONS false, 55000). */
const REFUSING = /not currently accepting connections/;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_ERRNOS.has(code) || code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code))
    )
      return true;
    if (typeof message === 'string' && REFUSING.test(message)) return true;
  }
  return false;
}
