/**
 * In-process cache of catalog answers, keyed by the caller's visibility scope and the normalized
 * query. An entry is valid while the catalog generation it was computed under is current (any catalog
 * write, here or in another process, bumps it: see invalidation.ts) and for at most ENTRY_TTL_MS
 * (download_count changes without a catalog write). Concurrent misses of one key compute once.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CatalogScope } from '../principal';
import { generation } from '../invalidation';

const ENTRY_TTL_MS = 60_000;

export interface CachedAnswer<T> {
  value: T;
  /** Strong ETag of the answer's JSON. */
  etag: string;
}

interface Entry extends CachedAnswer<unknown> {
  generation: number;
  size: number;
}

const holder = globalThis as { __hubCatalogCache?: LRUCache<string, Entry>; __hubCatalogInflight?: Map<string, Promise<Entry>> };
const cache = (holder.__hubCatalogCache ??= new LRUCache<string, Entry>({
  max: 20_000,
  maxSize: 128 * 1024 * 1024,
  sizeCalculation: (entry) => Math.max(1, entry.size),
  ttl: ENTRY_TTL_MS,
}));
const inflight = (holder.__hubCatalogInflight ??= new Map());

export function scopeKey(scope: CatalogScope): string {
  return scope.kind === 'org' ? `org:${scope.orgId}` : scope.kind;
}

export async function cachedCatalogRead<T>(
  scope: CatalogScope,
  operation: string,
  input: unknown,
  compute: () => Promise<T>,
): Promise<CachedAnswer<T>> {
  const key = `${scopeKey(scope)}|${operation}|${JSON.stringify(input ?? null)}`;
  const current = generation('catalog');
  const hit = cache.get(key);
  if (hit && hit.generation === current) return hit as CachedAnswer<T>;

  const flightKey = `${current}|${key}`;
  let pending = inflight.get(flightKey);
  if (!pending) {
    pending = (async () => {
      const value = await compute();
      const json = JSON.stringify(value);
      const entry: Entry = { value, etag: `"${createHash('sha1').update(json).digest('base64url')}"`, generation: current, size: json.length };
      // A write that happened while computing may not be in `value`: keep it only if none did.
      if (generation('catalog') === current) cache.set(key, entry);
      return entry;
    })().finally(() => inflight.delete(flightKey));
    inflight.set(flightKey, pending);
  }
  return (await pending) as CachedAnswer<T>;
}

/** For tests and operators: forget everything (the next reads go to the database). */
export function clearCatalogCache() {
  cache.clear();
}
