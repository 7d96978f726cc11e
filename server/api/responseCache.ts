/**
 * The REST response cache of the catalog reads. Core instances poll the same few answers over and over;
 * a hit is served from stored bytes without running the procedure, validating its output or serializing
 * it again. A procedure opts in with `meta.responseCache = 'catalog'`.
 *
 *  - Key: the caller (its kind and catalog scope: what it may see) and the normalized URL.
 *  - Valid while the catalog generation it was stored under is current: every catalog write bumps it in
 *    this process at once and in the others through LISTEN/NOTIFY (db/invalidation.ts); and for at
 *    most HUB_RESPONSE_CACHE_TTL_MS (read at each store), since download counts change without a catalog write.
 *  - Compressed once per entry: the gzip and brotli forms are made the first time a client accepts
 *    them and kept with the entry (Vary: Accept-Encoding); every answer has its Content-Length.
 *  - ETag (strong, of the JSON, one per encoding) and Cache-Control on every answer; If-None-Match → 304.
 *  - Effects that belong to every read (counting a download, a poll) are registered by the procedure with
 *    ctx.repeatOnCachedRead() and run by REST after every answer, fresh or from the cache, 304 included.
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { config } from '../config';
import type { HeaderReader } from '../auth/credentials';
import { generation } from '../db/invalidation';
import { catalogScopeOf, type Principal } from '../domain/principal';
import { gaugeOf, hubMetrics } from '../metrics';

export type ResponseCachePolicy = 'catalog';

/** An effect of a read, run after each REST answer with that request's caller and status (trpc.ts Context). */
export type ReadEffect = (principal: Principal, status: number) => void;

/** Smaller answers are sent as they are: compression would save less than it costs. */
const COMPRESS_MIN_BYTES = 1024;

type Encoding = 'br' | 'gzip' | 'identity';

export interface CachedResponse {
  generation: number;
  /** The JSON, as sent without compression. */
  identity: Buffer;
  /** Compressed forms, made on first demand. */
  encoded: { br?: Buffer; gzip?: Buffer };
  /** The strong ETag of the JSON, without its quotes. */
  tag: string;
  /** The ETag header of each encoding, made once (a poll compares and sends it on every request). */
  etags: Record<Encoding, string>;
  repeat: ReadEffect[];
}

const cache = ((globalThis as { __hubResponseCache?: LRUCache<string, CachedResponse> }).__hubResponseCache ??=
  new LRUCache({
    max: config.responseCacheEntries,
    // Bytes held: the JSON and, at most, about as much again in compressed forms.
    maxSize: Math.max(1, config.responseCacheMb) * 1024 * 1024,
    sizeCalculation: (entry) => Math.max(1, Math.ceil(entry.identity.byteLength * 1.5)),
    // No ttl here: each entry gets HUB_RESPONSE_CACHE_TTL_MS when stored (store()).
  }));

gaugeOf('hub_response_cache_entries', 'Entries held by the REST response cache', {}, () => cache.size);

function callerKey(principal: Principal): string {
  const scope = catalogScopeOf(principal);
  return `${principal.kind}:${scope.kind === 'org' ? scope.orgId : scope.kind}`;
}

/** `query`: the parameters the procedure reads, in one order (rest.ts, knownParams). */
export function cacheKey(principal: Principal, pathname: string, query: string): string {
  return `${callerKey(principal)} ${pathname}?${query}`;
}

/** One request target's cache keys, by the caller's kind and catalog scope (an organization's id, or none). */
export interface CacheKeys {
  pathname: string;
  query: string;
  byCaller: Map<string, Map<string, string>>;
}

export function cacheKeysOf(pathname: string, query: string): CacheKeys {
  return { pathname, query, byCaller: new Map() };
}

/** cacheKey's key, made once per caller scope and target (rest.ts keeps the target): a poll builds no string. */
export function cacheKeyOf(keys: CacheKeys, principal: Principal): string {
  const scope = catalogScopeOf(principal);
  const within = scope.kind === 'org' ? scope.orgId : scope.kind;
  let byScope = keys.byCaller.get(principal.kind);
  if (!byScope) keys.byCaller.set(principal.kind, (byScope = new Map()));
  let key = byScope.get(within);
  if (key === undefined) {
    key = cacheKey(principal, keys.pathname, keys.query);
    // Bounded like the targets: a target polled by more organizations than this starts over.
    if (byScope.size >= 10_000) byScope.clear();
    byScope.set(within, key);
  }
  return key;
}

/** The cached answer under `key` for the current catalog generation; a miss is counted by computeOnce. */
export function lookUp(key: string): CachedResponse | undefined {
  const hit = cache.get(key);
  if (hit && hit.generation === generation('catalog')) {
    hubMetrics.responseCache('hit');
    return hit;
  }
  return undefined;
}

/** Answers being computed, by catalog generation and cache key (the process's own, never shared across processes). */
const computing = new Map<string, Promise<CachedResponse>>();

/**
 * A missed answer computed once however many identical requests miss at the same time (after a catalog write, a
 * fleet's polls of one list all miss together): they wait for the one computation. Keyed by the generation too: a
 * request that arrives after a write never waits for an answer computed before it.
 */
export function computeOnce(
  key: string,
  compute: (computedUnder: number) => Promise<CachedResponse>,
): Promise<CachedResponse> {
  const computedUnder = generation('catalog');
  const flight = `${computedUnder}\n${key}`;
  const pending = computing.get(flight);
  if (pending) {
    hubMetrics.responseCache('shared');
    return pending;
  }
  hubMetrics.responseCache('miss');
  const computed = compute(computedUnder).finally(() => computing.delete(flight));
  computing.set(flight, computed);
  return computed;
}

/** Stores an answer computed while `computedUnder` was the generation, unless a write happened meanwhile. */
export function store(key: string, computedUnder: number, json: string, repeat: ReadEffect[]): CachedResponse {
  const identity = Buffer.from(json);
  const tag = createHash('sha1').update(identity).digest('base64url');
  const entry: CachedResponse = {
    generation: computedUnder,
    identity,
    encoded: {},
    tag,
    etags: { identity: `"${tag}"`, br: `"${tag}.br"`, gzip: `"${tag}.gzip"` },
    repeat,
  };
  if (config.responseCacheMb > 0 && generation('catalog') === computedUnder)
    cache.set(key, entry, { ttl: config.responseCacheTtlMs });
  return entry;
}

/**
 * Brotli quality 5: a 50-template page (100 KB of JSON) becomes 8.5% of its size in about 1 ms; quality 11
 * saves one more point for about 100 ms. gzip level 6: 10%, 0.5 ms.
 */
function bodyIn(entry: CachedResponse, encoding: Encoding): Buffer {
  if (encoding === 'identity') return entry.identity;
  return (entry.encoded[encoding] ??=
    encoding === 'br'
      ? brotliCompressSync(entry.identity, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 5,
            [constants.BROTLI_PARAM_SIZE_HINT]: entry.identity.byteLength,
          },
        })
      : gzipSync(entry.identity, { level: 6 }));
}

const negotiated = new Map<string, Encoding>();

/** The encoding to send for an Accept-Encoding header: brotli, else gzip, else none (q=0 refuses). */
export function negotiateEncoding(acceptEncoding: string | null): Encoding {
  if (!acceptEncoding) return 'identity';
  let choice = negotiated.get(acceptEncoding);
  if (choice) return choice;
  const accepted = new Set<string>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    if (name && (!q || Number(q[1]) > 0)) accepted.add(name);
  }
  choice = accepted.has('br') ? 'br' : accepted.has('gzip') || accepted.has('*') ? 'gzip' : 'identity';
  if (negotiated.size > 1000) negotiated.clear();
  negotiated.set(acceptEncoding, choice);
  return choice;
}

function etagMatches(ifNoneMatch: string | null, entry: CachedResponse): boolean {
  if (!ifNoneMatch) return false;
  // What a poller sends back: the ETag it was given, as it was given (no string is built to compare it).
  const { etags, tag } = entry;
  if (ifNoneMatch === etags.identity || ifNoneMatch === etags.br || ifNoneMatch === etags.gzip) return true;
  if (ifNoneMatch.trim() === '*') return true;
  // Any representation's ETag of the same JSON matches (weak comparison, as RFC 9110 asks for If-None-Match).
  return ifNoneMatch.split(',').some(
    (candidate) =>
      candidate
        .trim()
        .replace(/^W\//, '')
        .replace(/^"|"$/g, '')
        .replace(/\.(br|gzip)$/, '') === tag,
  );
}

// Anonymous answers may be kept by shared caches; keyed answers only by their caller. Both revalidate.
const PUBLIC = 'public, max-age=0, must-revalidate';
const PRIVATE = 'private, max-age=0, must-revalidate';
const VARY = 'Authorization, Accept-Encoding';

/**
 * The answer of a cached entry for this request: 304, or 200 in the best encoding the client accepts. Its headers
 * object is the caller's to extend (rest.ts adds the RateLimit headers to it).
 */
export function cachedAnswer(entry: CachedResponse, principal: Principal, headers: HeaderReader) {
  const encoding =
    entry.identity.byteLength >= COMPRESS_MIN_BYTES ? negotiateEncoding(headers.get('accept-encoding')) : 'identity';
  const out: Record<string, string> = {
    etag: entry.etags[encoding],
    'cache-control': principal.kind === 'anonymous' ? PUBLIC : PRIVATE,
    vary: VARY,
  };
  if (etagMatches(headers.get('if-none-match'), entry)) return { status: 304, headers: out, body: null };
  const body = bodyIn(entry, encoding);
  out['content-type'] = 'application/json';
  out['content-length'] = String(body.byteLength);
  if (encoding !== 'identity') out['content-encoding'] = encoding;
  return { status: 200, headers: out, body };
}
