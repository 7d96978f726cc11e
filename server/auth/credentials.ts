/**
 * Who is calling: the Hub's one credential resolver, for every credential kind and every surface.
 *   - REST, /api/trpc, pages, the export route, the CLI: resolveCredential() → Principal
 *     (session cookie or Hub JWT → user; instance key svh_ → instance; none → anonymous; svp_ → refused);
 *   - /mcp: resolvePat() → the personal access token's person and instance.
 * A credential that is present but not valid is refused (ServiceError unauthenticated / forbidden, with a
 * machine-readable reason); it never falls back to anonymous.
 *
 * Secrets (svh_, svp_) are looked up by their SHA-256 in one cache: an entry lives LOOKUP_TTL_MS at most
 * and dies at once when an 'auth' change is announced (re-issue, revoke, rotation, membership, organization
 * status, a new MCP URL; server/db/invalidation.ts), in this process and through LISTEN/NOTIFY in the
 * others. Expiry is checked on every call. Users behind a JWT are read on every call (role and
 * organization are never stale), with the row of a script token (a JWT with a `jti`, server/domain/scriptTokens.ts)
 * in the same statement, so its revocation holds at once in every process. last_used_at has one throttled
 * writer for every kind.
 */
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { config } from '../config';
import { databaseIsOpen, getDb, type Db } from '../db/client';
import { generation } from '../db/invalidation';
import { instanceKeys, instanceReports, organizations, personalAccessTokens, scriptTokens, users } from '../db/schema';
import { ServiceError, unauthenticated } from '../domain/errors';
import { verifyJwt } from '../domain/jwt';
import { issuedBeforeSignOut } from '../domain/profile';
import { apiTokenEnded, recordMcpCall, sameMembership, type ResolvedPat } from '../domain/pats';
import { ANONYMOUS, type InstancePrincipal, type Principal } from '../domain/principal';
import { hashSecret, parseBearer, parseSecret, secretKindOf } from '@shared/tokens';
import { gaugeOf, hubMetrics } from '../metrics';
import { logger } from '../log';
import { flushLater, oneAtATime } from '../batched';

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
  if (token === null) return ANONYMOUS;
  const kind = secretKindOf(token);
  if (kind === 'svp_')
    unauthenticated('Personal access tokens are accepted only at the /mcp endpoint', 'personal_access_token');
  if (kind === 'svh_') return resolveInstanceKey(token);
  return resolveUserToken(token);
}

// ---------------------------------------------------------------- the one cache of secret look-ups

type Lookup = { kind: 'svh_'; row: InstanceKeyRow | null } | { kind: 'svp_'; row: PatRow | null };
type CachedLookup = { generation: number; loadedAt: number; lookup: Lookup };
const lookups = ((globalThis as { __hubCredentialLookups?: LRUCache<string, CachedLookup> }).__hubCredentialLookups ??=
  new LRUCache({ max: config.credentialCacheMax, ttl: config.credentialCacheTtlMs }));

async function cachedLookup<K extends Lookup['kind']>(
  kind: K,
  token: string,
  load: (hash: string) => Promise<Extract<Lookup, { kind: K }>['row']>,
) {
  const hash = hashSecret(token);
  const current = generation('auth');
  const hit = lookups.get(hash);
  if (hit && hit.generation === current && hit.lookup.kind === kind) {
    hubMetrics.credentialCache(true);
    if (kind === 'svh_' && Date.now() - hit.loadedAt > config.credentialCacheTtlMs / 2) refreshLater(hash);
    return hit.lookup.row as Extract<Lookup, { kind: K }>['row'];
  }
  hubMetrics.credentialCache(false);
  const loadedAt = Date.now();
  const row = await load(hash);
  // Only if no change was announced while looking up: the answer might predate it.
  if (generation('auth') === current)
    remember(hash, { generation: current, loadedAt, lookup: { kind, row } as Lookup });
  return row;
}

/** The lifetime is read at each store (tests and operators may change it without a restart). */
function remember(hash: string, entry: CachedLookup): void {
  lookups.set(hash, entry, { ttl: config.credentialCacheTtlMs });
}

// Refresh ahead: an instance key used past half its entry's lifetime is read again in the background, with every
// other key due, in one statement a second. A fleet polling every minute then never waits on an expired entry, and
// the cache costs a statement a second instead of one per key per lifetime (100,000 keys, 10 min: 167/s). The
// lifetime still bounds how old an entry can be (what no announcement covers, e.g. a row changed by hand).
const REFRESH_FLUSH_MS = 1_000;
const refresh = ((
  globalThis as {
    __hubCredentialRefresh?: { due: Set<string>; timer: NodeJS.Timeout | null; flushing: Promise<void> | undefined };
  }
).__hubCredentialRefresh ??= { due: new Set(), timer: null, flushing: undefined });

function refreshLater(hash: string): void {
  refresh.due.add(hash);
  flushLater(refresh, REFRESH_FLUSH_MS, 'credential_refresh', refreshInstanceKeys);
}

/** Reads the instance keys due for a refresh now (tests; the timer's flush otherwise). */
export const refreshInstanceKeys = oneAtATime(refresh, async () => {
  const hashes = [...refresh.due];
  refresh.due.clear();
  if (hashes.length === 0 || !databaseIsOpen()) return;
  const current = generation('auth');
  const loadedAt = Date.now();
  let rows: Map<string, InstanceKeyRow>;
  try {
    rows = await instanceKeyRows(hashes);
  } catch (err) {
    // The database is away: the entries serve until their lifetime ends, then a request reads its key itself.
    logger.warn({ err: (err as Error).message, keys: hashes.length }, 'instance keys not refreshed');
    return;
  }
  if (generation('auth') !== current) return;
  for (const hash of hashes)
    remember(hash, { generation: current, loadedAt, lookup: { kind: 'svh_', row: rows.get(hash) ?? null } });
});

gaugeOf('hub_credential_cache_entries', 'Secret look-ups held by the credential cache', {}, () => lookups.size);

// ---------------------------------------------------------------- the one last-used writer

// At most one mark per credential per minute from this process; the WHERE clause keeps several
// processes from writing more often than that together. Marks are batched: one UPDATE per kind every
// LAST_USED_FLUSH_MS for every credential used meanwhile (a fleet of 100,000 keys polling each minute costs
// a statement every few seconds, not one per poll). A failed write is dropped: the next use marks again.
const LAST_USED_INTERVAL_MS = 60_000;
const LAST_USED_FLUSH_MS = 1_000;
const LAST_USED_TABLES = { svh_: instanceKeys, svp_: personalAccessTokens, script: scriptTokens };
type LastUsedKind = keyof typeof LAST_USED_TABLES;
const lastUsed = ((
  globalThis as {
    __hubLastUsed?: {
      touched: Map<string, number>;
      pending: Map<LastUsedKind, Set<string>>;
      timer: NodeJS.Timeout | null;
      flushing: Promise<void> | undefined;
    };
  }
).__hubLastUsed ??= { touched: new Map(), pending: new Map(), timer: null, flushing: undefined });
gaugeOf('hub_batched_write_queue', 'Entries waiting for a batched write', { queue: 'last_used' }, () => {
  let n = 0;
  for (const ids of lastUsed.pending.values()) n += ids.size;
  return n;
});

function touchLastUsed(kind: LastUsedKind, id: string): void {
  const now = Date.now();
  if (now - (lastUsed.touched.get(id) ?? 0) < LAST_USED_INTERVAL_MS) return;
  if (lastUsed.touched.size > 200_000) lastUsed.touched.clear();
  lastUsed.touched.set(id, now);
  let ids = lastUsed.pending.get(kind);
  if (!ids) lastUsed.pending.set(kind, (ids = new Set<string>()));
  ids.add(id);
  flushLater(lastUsed, LAST_USED_FLUSH_MS, 'last_used', flushLastUsed);
}

/** Writes the pending last-used marks now, after a write already under way (also on shutdown). */
export const flushLastUsed = oneAtATime(lastUsed, async () => {
  if (lastUsed.timer) clearTimeout(lastUsed.timer);
  lastUsed.timer = null;
  const batches: [LastUsedKind, Set<string>][] = [...lastUsed.pending];
  lastUsed.pending.clear();
  if (batches.length === 0 || !databaseIsOpen()) return;
  try {
    const db = await getDb();
    for (const [kind, ids] of batches) {
      const table = LAST_USED_TABLES[kind];
      await db
        .update(table)
        .set({ lastUsedAt: sql`now()` })
        .where(
          and(
            sql`${table.id} = any(${`{${[...ids].sort().join(',')}}`}::uuid[])`,
            or(isNull(table.lastUsedAt), lt(table.lastUsedAt, sql`now() - interval '1 minute'`)),
          ),
        );
    }
  } catch (err) {
    // The driver's own message (the query error would repeat every id of the batch).
    logger.warn(
      { err: ((err as { cause?: Error }).cause ?? (err as Error)).message },
      'could not record credential use',
    );
  }
});

// ---------------------------------------------------------------- instance keys (svh_)

type InstanceKeyRow = { id: string; name: string; orgId: string; status: string; orgStatus: string };

/** The instance keys of these secret hashes, by hash: one statement for one key or for a refresh of thousands. */
async function instanceKeyRows(hashes: string[]): Promise<Map<string, InstanceKeyRow>> {
  const db = await getDb();
  const rows = await db
    .select({
      hash: instanceKeys.keyHash,
      id: instanceKeys.id,
      name: instanceKeys.name,
      orgId: instanceKeys.orgId,
      status: instanceKeys.status,
      orgStatus: organizations.status,
    })
    .from(instanceKeys)
    .innerJoin(organizations, eq(organizations.id, instanceKeys.orgId))
    // One array parameter however many (hex digests: nothing to quote in the literal).
    .where(sql`${instanceKeys.keyHash} = any(${`{${hashes.join(',')}}`}::text[])`);
  return new Map(rows.map(({ hash, ...row }) => [hash, row]));
}

async function loadInstanceKey(hash: string): Promise<InstanceKeyRow | null> {
  return (await instanceKeyRows([hash])).get(hash) ?? null;
}

async function resolveInstanceKey(token: string): Promise<InstancePrincipal> {
  if (!parseSecret(token)) unauthenticated('Malformed instance key', 'malformed_token');
  const row = await cachedLookup('svh_', token, loadInstanceKey);
  if (!row) unauthenticated('Unknown instance key', 'unknown_token');
  if (row.status !== 'active') unauthenticated('This instance key has been revoked', 'revoked');
  if (row.orgStatus !== 'active')
    throw new ServiceError('forbidden', 'The organization of this instance key is suspended', {
      reason: 'organization_suspended',
    });
  touchLastUsed('svh_', row.id);
  return { kind: 'instance', keyId: row.id, keyName: row.name, orgId: row.orgId };
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

/** Every /mcp call runs this look-up: a prepared statement, planned once per connection. */
function preparePatLookup(db: Db) {
  return db
    .select({
      tokenId: personalAccessTokens.id,
      userId: personalAccessTokens.userId,
      orgId: personalAccessTokens.orgId,
      instanceKeyId: personalAccessTokens.instanceKeyId,
      revokedAt: personalAccessTokens.revokedAt,
      expiresAt: personalAccessTokens.expiresAt,
      member: sameMembership,
      email: users.email,
      name: users.name,
      orgStatus: organizations.status,
      instanceStatus: instanceKeys.status,
      mcpUrl: instanceReports.mcpUrl,
      scriptTokenId: personalAccessTokens.scriptTokenId,
      apiTokenEnded,
      apiTokenExpiresAt: scriptTokens.expiresAt,
    })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .leftJoin(scriptTokens, eq(scriptTokens.id, personalAccessTokens.scriptTokenId))
    .innerJoin(organizations, eq(organizations.id, personalAccessTokens.orgId))
    .innerJoin(
      instanceKeys,
      and(eq(instanceKeys.id, personalAccessTokens.instanceKeyId), eq(instanceKeys.orgId, personalAccessTokens.orgId)),
    )
    .leftJoin(instanceReports, eq(instanceReports.instanceKeyId, personalAccessTokens.instanceKeyId))
    .where(eq(personalAccessTokens.tokenHash, sql.placeholder('hash')))
    .prepare('resolve_personal_access_token');
}
type PatRow = Awaited<ReturnType<ReturnType<typeof preparePatLookup>['execute']>>[number];
const patStatements = new WeakMap<Db, ReturnType<typeof preparePatLookup>>();

async function loadPat(hash: string): Promise<PatRow | null> {
  const db = await getDb();
  let statement = patStatements.get(db);
  if (!statement) patStatements.set(db, (statement = preparePatLookup(db)));
  const [row] = await statement.execute({ hash });
  return row ?? null;
}

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
