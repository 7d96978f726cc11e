/**
 * The one cache of secret look-ups (svh_, svp_), by the secret's SHA-256: an entry lives HUB_CREDENTIAL_CACHE_TTL_MS
 * at most and dies at once when an 'auth' change is announced (server/db/invalidation.ts); an instance key used past
 * half its entry's lifetime is read again in the background.
 */
import { LRUCache } from 'lru-cache';
import { flushLater, oneAtATime } from '../batched';
import { config } from '../config';
import { databaseIsOpen } from '../db/client';
import { generation } from '../db/invalidation';
import { logger, wallClock } from '../log';
import { gaugeOf, hubMetrics } from '../metrics';
import { hashSecret } from '@shared/tokens';
import { instanceKeyRows, type InstanceKeyRow, type PatRow } from './credentialRows';

type Lookup = { kind: 'svh_'; row: InstanceKeyRow | null } | { kind: 'svp_'; row: PatRow | null };
type CachedLookup = { generation: number; loadedAt: number; lookup: Lookup };
const lookups = ((globalThis as { __hubCredentialLookups?: LRUCache<string, CachedLookup> }).__hubCredentialLookups ??=
  new LRUCache({ max: config.credentialCacheMax, ttl: config.credentialCacheTtlMs }));

type RowOf<K extends Lookup['kind']> = Extract<Lookup, { kind: K }>['row'];

/** The cached look-up of a secret as it stands, without reading the database: `{ row }` on a hit, else undefined. */
function cachedRow<K extends Lookup['kind']>(kind: K, hash: string, current: number): { row: RowOf<K> } | undefined {
  const hit = lookups.get(hash);
  if (!hit || hit.generation !== current || hit.lookup.kind !== kind) return undefined;
  hubMetrics.credentialCache(true);
  if (kind === 'svh_' && wallClock() - hit.loadedAt > config.credentialCacheTtlMs / 2) refreshLater(hash);
  return hit.lookup as { row: RowOf<K> };
}

/**
 * A secret's row from the cache, synchronously (a cached instance key is the 304 poll's case: no promise, no await),
 * or the promise of reading it (then cached).
 */
export function lookupNow<K extends Lookup['kind']>(
  kind: K,
  token: string,
  load: (hash: string) => Promise<RowOf<K>>,
  beforeLoad?: (token: string) => void,
): RowOf<K> | Promise<RowOf<K>> {
  const hash = hashSecret(token);
  const hit = cachedRow(kind, hash, generation('auth'));
  if (hit) return hit.row as RowOf<K> | Promise<RowOf<K>>;
  // A check of the token itself (its checksum) is needed once: a token found in the cache, by the hash of the very
  // same text, passed it when it was first looked up.
  beforeLoad?.(token);
  return loadRow(kind, hash, load);
}

export async function cachedLookup<K extends Lookup['kind']>(
  kind: K,
  token: string,
  load: (hash: string) => Promise<RowOf<K>>,
): Promise<RowOf<K>> {
  return lookupNow(kind, token, load);
}

async function loadRow<K extends Lookup['kind']>(
  kind: K,
  hash: string,
  load: (hash: string) => Promise<RowOf<K>>,
): Promise<RowOf<K>> {
  const current = generation('auth');
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
