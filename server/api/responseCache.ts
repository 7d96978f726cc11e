/**
 * The REST response cache of the catalog reads. Core instances poll the same few answers over and over;
 * a hit is served from the stored JSON text without running the procedure, validating its output or
 * serializing it again. A procedure opts in with `meta.responseCache = 'catalog'`.
 *
 *  - Key: the caller (its kind and catalog scope: what it may see) and the normalized URL.
 *  - Valid while the catalog generation it was stored under is current: every catalog write bumps it in
 *    this process at once and in the others through LISTEN/NOTIFY (domain/invalidation.ts); and for at
 *    most ENTRY_TTL_MS, since download counts change without a catalog write.
 *  - ETag (strong, of the stored text) and Cache-Control on every answer; If-None-Match → 304.
 *  - Effects that belong to every read (counting a download) are registered by the procedure with
 *    ctx.repeatOnCachedRead() and run again on each hit, 304 included.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { generation } from '../domain/invalidation';
import { catalogScopeOf, type Principal } from '../domain/principal';

export type ResponseCachePolicy = 'catalog';

const ENTRY_TTL_MS = 60_000;

export interface CachedResponse {
  generation: number;
  body: string;
  etag: string;
  repeat: (() => void)[];
}

const cache = ((globalThis as { __hubResponseCache?: LRUCache<string, CachedResponse> }).__hubResponseCache ??= new LRUCache({
  max: 20_000,
  // Bytes held, roughly: strings are UTF-16 in memory.
  maxSize: 48 * 1024 * 1024,
  sizeCalculation: (entry) => Math.max(1, entry.body.length * 2),
  ttl: ENTRY_TTL_MS,
}));

function callerKey(principal: Principal): string {
  const scope = catalogScopeOf(principal);
  return `${principal.kind}:${scope.kind === 'org' ? scope.orgId : scope.kind}`;
}

/** Same answer for the same parameters in any order. */
export function cacheKey(principal: Principal, url: URL): string {
  const params = [...url.searchParams].sort(([a, x], [b, y]) => (a === b ? x.localeCompare(y) : a.localeCompare(b)));
  return `${callerKey(principal)} ${url.pathname}?${new URLSearchParams(params)}`;
}

export function lookUp(key: string): CachedResponse | undefined {
  const hit = cache.get(key);
  return hit && hit.generation === generation('catalog') ? hit : undefined;
}

/** Stores an answer computed while `computedUnder` was the generation, unless a write happened meanwhile. */
export function store(key: string, computedUnder: number, body: string, repeat: (() => void)[]): CachedResponse {
  const entry = { generation: computedUnder, body, etag: `"${createHash('sha1').update(body).digest('base64url')}"`, repeat };
  if (generation('catalog') === computedUnder) cache.set(key, entry);
  return entry;
}

export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** Anonymous answers may be kept by shared caches; keyed answers only by their caller. Both revalidate. */
export function cacheHeaders(principal: Principal, etag: string): Record<string, string> {
  return {
    etag,
    'cache-control': principal.kind === 'anonymous' ? 'public, max-age=0, must-revalidate' : 'private, max-age=0, must-revalidate',
    vary: 'Authorization',
  };
}
