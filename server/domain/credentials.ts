/**
 * The one credential resolver: every surface (REST, tRPC, CLI) turns a request into a Principal here.
 * A credential that is present but not valid is refused (401/403); it never falls back to anonymous.
 */
import { TRPCError } from '@trpc/server';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { getDb } from '../db/client';
import { instanceKeys, organizations, users } from '../db/schema';
import { verifyJwt } from './jwt';
import { LRUCache } from 'lru-cache';
import { generation } from './invalidation';
import { ANONYMOUS, type InstancePrincipal, type Principal } from './principal';
import { hashSecret, parseSecret, secretKindOf } from './tokens';

/** next-auth (v5) session cookies; the session token is a Hub JWT (see server/auth). */
export const SESSION_COOKIE_NAMES = ['__Secure-authjs.session-token', 'authjs.session-token'];

export function unauthorized(message: string): never {
  throw new TRPCError({ code: 'UNAUTHORIZED', message });
}

/** The bearer token of a request; the session cookie counts only where the caller allows it (dashboard). */
export function credentialFromHeaders(headers: Headers, opts: { allowSessionCookie?: boolean } = {}): string | null {
  const authorization = headers.get('authorization');
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) unauthorized('The Authorization header must be "Bearer <token>"');
    return match[1]!;
  }
  if (opts.allowSessionCookie) {
    const cookies = headers.get('cookie') ?? '';
    for (const part of cookies.split(';')) {
      const [name, ...rest] = part.trim().split('=');
      if (name && SESSION_COOKIE_NAMES.includes(name)) return decodeURIComponent(rest.join('='));
    }
  }
  return null;
}

export async function resolveCredential(token: string | null): Promise<Principal> {
  if (token === null) return ANONYMOUS;
  const kind = secretKindOf(token);
  if (kind === 'svp_') {
    unauthorized('Personal access tokens are accepted only at the /mcp endpoint');
  }
  if (kind === 'svh_') return resolveInstanceKey(token);
  return resolveUserToken(token);
}

// Throttle for last_used_at: at most one write per key per minute from this process (and the
// WHERE clause keeps several processes from writing more often than that together).
const LAST_USED_INTERVAL_MS = 60_000;
const lastTouched = new Map<string, number>();

/**
 * Instance key look-ups, cached by key hash for KEY_CACHE_TTL_MS. Re-issue, revoke and organization
 * status changes announce an 'auth' change (invalidation.ts), which drops the whole cache in this
 * process at once and in the others when the notification arrives.
 */
const KEY_CACHE_TTL_MS = 30_000;
type KeyLookup = { ok: true; principal: InstancePrincipal } | { ok: false; code: 'UNAUTHORIZED' | 'FORBIDDEN'; message: string };
const keyCache = ((globalThis as { __hubKeyCache?: LRUCache<string, { generation: number; lookup: KeyLookup }> }).__hubKeyCache ??=
  new LRUCache({ max: 50_000, ttl: KEY_CACHE_TTL_MS }));

async function lookUpInstanceKey(hash: string): Promise<KeyLookup> {
  const db = await getDb();
  const [row] = await db
    .select({
      id: instanceKeys.id,
      name: instanceKeys.name,
      orgId: instanceKeys.orgId,
      status: instanceKeys.status,
      orgStatus: organizations.status,
    })
    .from(instanceKeys)
    .innerJoin(organizations, eq(organizations.id, instanceKeys.orgId))
    .where(eq(instanceKeys.keyHash, hash));
  if (!row) return { ok: false, code: 'UNAUTHORIZED', message: 'Unknown instance key' };
  if (row.status !== 'active') return { ok: false, code: 'UNAUTHORIZED', message: 'This instance key has been revoked' };
  if (row.orgStatus !== 'active') return { ok: false, code: 'FORBIDDEN', message: 'The organization of this instance key is suspended' };
  return { ok: true, principal: { kind: 'instance', keyId: row.id, keyName: row.name, orgId: row.orgId } };
}

async function resolveInstanceKey(token: string): Promise<Principal> {
  if (!parseSecret(token)) unauthorized('Malformed instance key');
  const hash = hashSecret(token);
  const current = generation('auth');
  let lookup = keyCache.get(hash);
  if (!lookup || lookup.generation !== current) {
    lookup = { generation: current, lookup: await lookUpInstanceKey(hash) };
    // Only if no change was announced while looking up: the answer might predate it.
    if (generation('auth') === current) keyCache.set(hash, lookup);
  }
  const result = lookup.lookup;
  if (!result.ok) throw new TRPCError({ code: result.code, message: result.message });
  touchLastUsed(result.principal.keyId);
  return result.principal;
}

function touchLastUsed(keyId: string) {
  const now = Date.now();
  if (now - (lastTouched.get(keyId) ?? 0) < LAST_USED_INTERVAL_MS) return;
  lastTouched.set(keyId, now);
  void getDb()
    .then((db) =>
      db
        .update(instanceKeys)
        .set({ lastUsedAt: sql`now()` })
        .where(
          and(
            eq(instanceKeys.id, keyId),
            or(isNull(instanceKeys.lastUsedAt), lt(instanceKeys.lastUsedAt, sql`now() - interval '1 minute'`)),
          ),
        ),
    )
    .catch((err) => console.error('[hub] could not record instance key use:', (err as Error).message));
}

async function resolveUserToken(token: string): Promise<Principal> {
  let subject: string | undefined;
  try {
    subject = (await verifyJwt(token)).sub;
  } catch {
    unauthorized('Invalid or expired token');
  }
  if (!subject || !/^[0-9a-f-]{36}$/i.test(subject)) unauthorized('Invalid or expired token');
  const db = await getDb();
  // Role, organization and existence come from the database on every request: no stale authority.
  const [user] = await db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      role: users.role,
      orgId: users.orgId,
      orgRole: users.orgRole,
    })
    .from(users)
    .where(eq(users.id, subject));
  if (!user) unauthorized('This user no longer exists');
  return {
    kind: 'user',
    userId: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    orgId: user.orgId,
    orgRole: user.orgId ? user.orgRole : null,
  };
}
