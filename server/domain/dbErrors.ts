/** PostgreSQL error codes through drizzle's wrapping (DrizzleQueryError.cause) on both drivers. */
export function pgErrorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** The constraint a violation names (postgres.js: constraint_name; PGlite: constraint). */
export function pgConstraint(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const c =
      (e as { constraint_name?: unknown; constraint?: unknown }).constraint_name ??
      (e as { constraint?: unknown }).constraint;
    if (typeof c === 'string') return c;
  }
  return undefined;
}

export const isUniqueViolation = (err: unknown) => pgErrorCode(err) === '23505';
export const isForeignKeyViolation = (err: unknown) => pgErrorCode(err) === '23503';
