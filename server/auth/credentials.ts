/**
 * Who is calling: the Hub's one credential resolver, for every credential kind and every surface.
 *   - REST, /api/trpc, pages, the export route, the CLI: resolveCredential() → Principal
 *     (session cookie or Hub JWT → user; instance key svh_ → instance; none → anonymous; svp_ → refused);
 *   - /mcp: resolvePat() → the personal access token's person and instance.
 * A credential that is present but not valid is refused (ServiceError unauthenticated / forbidden, with a
 * machine-readable reason); it never falls back to anonymous.
 *
 * Secrets (svh_, svp_) are read by their SHA-256 (credentialRows.ts) through one cache (credentialCache.ts): an
 * entry lives HUB_CREDENTIAL_CACHE_TTL_MS at most and dies at once when an 'auth' change is announced (re-issue,
 * revoke, rotation, membership, organization status, a new MCP URL; server/db/invalidation.ts), in this process and
 * through LISTEN/NOTIFY in the others. Expiry is checked on every call. Users behind a JWT are read on every call
 * (role and organization are never stale), with the row of a script token (a JWT with a `jti`,
 * server/domain/scriptTokens.ts) in the same statement, so its revocation holds at once in every process.
 * last_used_at has one throttled writer for every kind (lastUsed.ts).
 */
import { and, eq } from 'drizzle-orm';
import { config } from '../config';
import { getDb } from '../db/client';
import { organizations, scriptTokens, users } from '../db/schema';
import { ServiceError, unauthenticated } from '../domain/errors';
import { verifyJwt } from '../domain/jwt';
import { recordMcpCall } from '../domain/mcpCalls';
import { issuedBeforeSignOut } from '../domain/profile';
import type { ResolvedPat } from '../domain/pats';
import { ANONYMOUS, type InstancePrincipal, type Principal } from '../domain/principal';
import { parseBearer, parseSecret, secretKindOf } from '@shared/tokens';
import { cachedLookup, lookupNow } from './credentialCache';
import { loadInstanceKey, loadPat, type InstanceKeyRow } from './credentialRows';
import { touchLastUsed } from './lastUsed';

/**
 * The next-auth (v5) session cookie; the session token is a Hub JWT (see nextauth.ts). Under HTTPS only
 * the __Secure- one: a plain-named cookie could have been planted over HTTP or by a sibling subdomain.
 */
export function sessionCookieName(): string {
  return config.hubUrl.startsWith('https:') ? '__Secure-authjs.session-token' : 'authjs.session-token';
}

/** What the resolver reads of a request: Fetch Headers, or a view of Node's request headers. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** The bearer token of a request; the session cookie counts only where the caller allows it (dashboard). */
export function credentialFromHeaders(
  headers: HeaderReader,
  opts: { allowSessionCookie?: boolean } = {},
): string | null {
  const authorization = headers.get('authorization');
  if (authorization !== null) {
    const token = parseBearer(authorization);
    if (!token) unauthenticated('The Authorization header must be "Bearer <token>"', 'malformed_header');
    return token;
  }
  if (opts.allowSessionCookie) {
    const cookies = headers.get('cookie') ?? '';
    const wanted = sessionCookieName();
    for (const part of cookies.split(';')) {
      const [name, ...rest] = part.trim().split('=');
      if (name === wanted) return decodeURIComponent(rest.join('='));
    }
  }
  return null;
}

export async function resolveCredential(token: string | null): Promise<Principal> {
  return resolveCredentialNow(token);
}

/**
 * resolveCredential, synchronous when no look-up is needed: anonymous, or an instance key whose row is cached (the
 * fleet's polls). A refusal is then thrown at once; otherwise the promise of the principal.
 */
export function resolveCredentialNow(token: string | null): Principal | Promise<Principal> {
  if (token === null) return ANONYMOUS;
  const kind = secretKindOf(token);
  if (kind === 'svp_')
    unauthenticated('Personal access tokens are accepted only at the /mcp endpoint', 'personal_access_token');
  if (kind === 'svh_') return resolveInstanceKey(token);
  return resolveUserToken(token);
}

// ---------------------------------------------------------------- instance keys (svh_)

function refuseMalformedInstanceKey(token: string): void {
  if (!parseSecret(token)) unauthenticated('Malformed instance key', 'malformed_token');
}

function resolveInstanceKey(token: string): InstancePrincipal | Promise<InstancePrincipal> {
  const row = lookupNow('svh_', token, loadInstanceKey, refuseMalformedInstanceKey);
  return row instanceof Promise ? row.then(instancePrincipalOf) : instancePrincipalOf(row);
}

/** The principal of a cached row, made once per row (a row is replaced, never changed, when the cache reads it again). */
const principals = new WeakMap<InstanceKeyRow, InstancePrincipal>();

function instancePrincipalOf(row: InstanceKeyRow | null): InstancePrincipal {
  if (!row) unauthenticated('Unknown instance key', 'unknown_token');
  if (row.status !== 'active') unauthenticated('This instance key has been revoked', 'revoked');
  if (row.orgStatus !== 'active')
    throw new ServiceError('forbidden', 'The organization of this instance key is suspended', {
      reason: 'organization_suspended',
    });
  touchLastUsed('svh_', row.id);
  let principal = principals.get(row);
  if (!principal) {
    principal = Object.freeze({ kind: 'instance', keyId: row.id, keyName: row.name, orgId: row.orgId } as const);
    principals.set(row, principal);
  }
  return principal;
}

// ---------------------------------------------------------------- Hub JWTs (session cookie or bearer)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

async function resolveUserToken(token: string): Promise<Principal> {
  let subject: string | undefined;
  let issuedAt: number | undefined;
  let jti: string | undefined;
  try {
    ({ sub: subject, iat: issuedAt, jti } = await verifyJwt(token));
  } catch {
    unauthenticated('Invalid or expired token', 'invalid_token');
  }
  if (!subject || !UUID.test(subject)) unauthenticated('Invalid or expired token', 'invalid_token');
  // A `jti` marks a recorded script token (hub token, the dashboard's API access panel): its row must exist and not be revoked.
  if (jti !== undefined && !UUID.test(jti)) unauthenticated('Invalid or expired token', 'invalid_token');
  const db = await getDb();
  // Role, organization, existence and (for script tokens) revocation come from the database on every request,
  // in one statement: no stale authority, and a revocation is refused at once by every process (no cache).
  const [user] = await db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      role: users.role,
      orgId: users.orgId,
      orgRole: users.orgRole,
      orgStatus: organizations.status,
      sessionsValidAfter: users.sessionsValidAfter,
      scriptTokenId: scriptTokens.id,
      scriptTokenRevokedAt: scriptTokens.revokedAt,
    })
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.orgId))
    .leftJoin(scriptTokens, and(eq(scriptTokens.id, jti ?? NIL_UUID), eq(scriptTokens.userId, users.id)))
    .where(eq(users.id, subject));
  if (!user) unauthenticated('This user no longer exists', 'unknown_user');
  if (jti !== undefined) {
    if (!user.scriptTokenId) unauthenticated('Unknown API token (it may have been deleted)', 'unknown_token');
    if (user.scriptTokenRevokedAt) unauthenticated('This API token has been revoked', 'revoked');
    touchLastUsed('script', jti);
  }
  if (issuedBeforeSignOut(issuedAt, user.sessionsValidAfter))
    unauthenticated('This session has been signed out; sign in again', 'signed_out');
  // A member of a suspended organization keeps their account but acts without it: no catalog view of
  // the organization and no operations on it (its keys and tokens are refused as well).
  const orgId = user.orgId && user.orgStatus === 'active' ? user.orgId : null;
  return {
    kind: 'user',
    userId: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    orgId,
    orgRole: orgId ? user.orgRole : null,
    ...(jti !== undefined && { scriptTokenId: jti }),
  };
}

// ---------------------------------------------------------------- personal access tokens (svp_, /mcp only)

/**
 * Resolves the bearer token of an /mcp request (null when absent); every lifecycle rule of
 * domain/pats.ts is checked on every call. Refusals carry their reason (the `reason` of the answer).
 */
export async function resolvePat(token: string | null): Promise<ResolvedPat> {
  if (token === null || token === '') {
    unauthenticated('A personal access token is required: send "Authorization: Bearer svp_…"', 'missing_token');
  }
  if (!token.startsWith('svp_')) {
    const what = token.startsWith('svh_') ? 'Instance keys are' : 'Hub JWTs and other credentials are';
    unauthenticated(`${what} not accepted at /mcp; use a personal access token (svp_…)`, 'not_a_personal_access_token');
  }
  if (parseSecret(token) !== 'svp_') unauthenticated('Malformed personal access token', 'malformed_token');

  const row = await cachedLookup('svp_', token, loadPat);
  if (!row)
    unauthenticated('Unknown personal access token (it may have been rotated or its owner deleted)', 'unknown_token');
  // A known token refused: counted for its instance as refused by the Hub (usage.ts), then refused.
  const refuse = (
    message: string,
    reason: string,
    code: 'unauthenticated' | 'forbidden' = 'unauthenticated',
  ): never => {
    void recordMcpCall({
      pat: { ...row, mcpUrl: row.mcpUrl ?? null },
      method: null,
      upstreamStatus: null,
      outcome: 'refused_hub',
    });
    throw new ServiceError(code, message, { reason });
  };
  if (row.revokedAt) refuse('This personal access token has been revoked', 'revoked');
  // Minted with a script token: it ends with that token (revoked, expired, signed out everywhere).
  const apiTokenExpired = !row.apiTokenExpiresAt || row.apiTokenExpiresAt.getTime() <= Date.now();
  if (row.scriptTokenId !== null && (row.apiTokenEnded || apiTokenExpired))
    refuse(
      'This personal access token was minted with an API token that has since been revoked, expired or signed out; mint a new one',
      'api_token_ended',
    );
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now())
    refuse('This personal access token has expired', 'expired');
  if (!row.member)
    refuse("This token's owner is no longer a member of the organization it was minted in", 'membership_ended');
  if (row.instanceStatus !== 'active')
    refuse('The instance this token is bound to has been revoked', 'instance_revoked');
  if (row.orgStatus !== 'active')
    refuse("The token's organization is suspended", 'organization_suspended', 'forbidden');
  touchLastUsed('svp_', row.tokenId);
  return {
    tokenId: row.tokenId,
    userId: row.userId,
    email: row.email,
    name: row.name,
    orgId: row.orgId,
    instanceKeyId: row.instanceKeyId,
    mcpUrl: row.mcpUrl ?? null,
  };
}
