/**
 * The Hub's identity assertion on /mcp: an ES256 JWT signed with a key from {hub}/.well-known/jwks.json,
 * iss = the Hub URL, aud = this instance's key id (as the Hub stated it in instance-info), 60 s, and
 * `destination` = the URL the Hub sent it to (the instance's registered MCP URL). Core accepts it only when
 * that destination is its own CORE_URL + /mcp: an assertion the Hub sent elsewhere (an organization admin who
 * pointed the instance's mcp_url at a server of their own) cannot be replayed here. It names a person by
 * email; the person is the Core user with that email and their Core role applies. A valid assertion for
 * someone Core does not know is refused with 403 (no default role).
 */
import { desc, lt, sql } from 'drizzle-orm';
import { errors as joseErrors, jwtVerify } from 'jose';
import { insecureTrustAnchor } from '../config';
import type { Db } from '../db/client';
import { hubAssertionJtis, users } from '../db/schema';
import { ServiceError, unauthenticated } from '../domain/errors';
import type { Principal } from '../domain/principal';
import type { HubConnection } from './connection';

/** null: the token does not claim to come from the connected Hub (another resolver path may know it). */
export async function verifyHubAssertion(
  db: Db,
  hub: HubConnection,
  issuer: unknown,
  token: string,
): Promise<Principal | null> {
  const creds = await hub.credentials();
  if (!creds || issuer !== creds.url) return null;
  const insecure = insecureTrustAnchor(creds.url);
  if (insecure)
    throw unauthenticated(
      `the Hub URL stored in Core's settings ${insecure}; an admin must reconnect Core to the Hub over https`,
    );
  if (creds.row.instanceId === null)
    throw unauthenticated('this Core instance has not reached its Hub yet: it cannot check Hub assertions');
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(token, hub.jwksFor(creds.url), {
      issuer: creds.url,
      audience: creds.row.instanceId,
      algorithms: ['ES256'],
      requiredClaims: ['exp', 'email', 'jti'],
      maxTokenAge: '10m',
    }));
  } catch (err) {
    const reason =
      err instanceof joseErrors.JWTExpired
        ? 'it has expired'
        : err instanceof joseErrors.JOSEError
          ? err.code
          : 'it could not be checked';
    throw unauthenticated(`the Hub assertion was refused: ${reason}`);
  }
  if (typeof claims.destination !== 'string')
    throw unauthenticated(
      'the Hub assertion was refused: it names no destination (the URL the Hub sent it to); upgrade the Hub',
    );
  if (sameUrl(claims.destination) !== sameUrl(hub.mcpUrl)) {
    throw unauthenticated(
      `the Hub assertion was refused: it was issued for another destination, not this instance's MCP endpoint ` +
        `(${hub.mcpUrl}); check that the instance's MCP URL registered at the Hub is this Core's CORE_URL + /mcp`,
    );
  }
  // Kept until it expires, at most until maxTokenAge would refuse it anyway.
  await refuseReplay(db, String(claims.jti), Math.min(claims.exp!, (claims.iat ?? claims.exp!) + 600));
  const email = String(claims.email);
  // Local account first, then the most recent OIDC account with that email.
  const [user] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
    .orderBy(sql`${users.kind} = 'local' desc`, desc(users.createdAt))
    .limit(1);
  if (!user) {
    throw new ServiceError(
      'forbidden',
      `${email} has no account on this Core instance, so the Hub cannot act for them here. ` +
        `Ask a Core admin to create a user with this email (Users in Core's web app, or "core user create"), ` +
        'or sign in to Core once with its identity provider; then try again.',
    );
  }
  const tokenId = typeof claims.token_id === 'string' ? claims.token_id : '';
  return { kind: user.kind, role: user.role, userId: user.id, email: user.email, name: user.name, hub: { tokenId } };
}

/** A URL in one spelling (host case, default port, trailing slashes), or the text itself when it is not a URL. */
function sameUrl(url: string): string {
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    return url;
  }
}

let sinceCleanup = 0;

/** Records the assertion's jti until it expires; a jti seen before is a replay (of a captured assertion). */
async function refuseReplay(db: Db, jti: string, exp: number) {
  if (jti.length > 200) throw unauthenticated('the Hub assertion was refused: its jti is too long');
  if (++sinceCleanup >= 100) {
    sinceCleanup = 0;
    await db.delete(hubAssertionJtis).where(lt(hubAssertionJtis.expiresAt, new Date()));
  }
  const recorded = await db
    .insert(hubAssertionJtis)
    .values({ jti, expiresAt: new Date(exp * 1000) })
    .onConflictDoNothing()
    .returning({ jti: hubAssertionJtis.jti });
  if (recorded.length === 0)
    throw unauthenticated(
      'the Hub assertion was refused: it was already used (a replay); the Hub mints one per request',
    );
}
