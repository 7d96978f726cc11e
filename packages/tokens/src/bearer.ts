/**
 * The bearer credential of an Authorization header (RFC 6750 on RFC 7235's syntax), as every endpoint of the Hub
 * and Core reads it: the scheme is case-insensitive ("Bearer", "bearer"), one or more spaces or tabs separate it
 * from the token, and the token is one run of visible characters (trailing blanks are dropped). Anything else
 * (another scheme, no token, two words) is no bearer credential.
 */
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of `Authorization: Bearer <token>`, or null when the header is absent or carries no bearer token. */
export function parseBearer(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  return BEARER.exec(authorization)?.[1] ?? null;
}
