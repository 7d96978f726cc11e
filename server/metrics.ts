/**
 * The Hub's Prometheus metrics, served at GET /metrics behind HUB_METRICS_TOKEN (server/http/metrics.ts): the
 * registry, request metrics and read-when-scraped gauges of @shared/metrics, and the Hub's own figures. Every
 * module updates its figures through this one registry, through label children bound once.
 * Depends on nothing of the Hub, so any layer may import it.
 */
import { bound, serviceMetrics, type Counter } from '@shared/metrics';

const m = serviceMetrics('hub', ({ counter }) => ({
  responseCache: counter(
    'hub_response_cache_lookups_total',
    'REST response cache look-ups of cacheable catalog reads',
    ['result'],
  ),
  credentialCache: counter(
    'hub_credential_cache_lookups_total',
    'Secret (instance key, PAT) look-ups in the credential cache',
    ['result'],
  ),
  statements: counter(
    'hub_db_statements_total',
    'Statements sent to the database, by connection pool and by what sent them (a route class or a background job)',
    ['pool', 'source'],
  ),
  statementTimeouts: counter(
    'hub_db_statement_timeouts_total',
    'Requests failed by statement_timeout (SQLSTATE 57014)',
  ),
  catalogReads: counter(
    'hub_catalog_reads_total',
    'Catalog reads by where they ran (fallback: failed on a replica, then run on the primary)',
    ['target'],
  ),
  rateLimited: counter('hub_rate_limit_refusals_total', 'Calls refused 429, by the limit they hit', ['limit']),
  mcpCalls: counter(
    'hub_mcp_calls_total',
    'Calls proxied at /mcp, by outcome (the instance answered 2xx, 4xx, 5xx, or no answer)',
    ['outcome'],
  ),
}));

/** The Hub's registry (the /metrics answer). */
export const metricsRegistry = m.registry;

/**
 * A gauge read when scraped: `read` answers the current value (a queue's length, a pool's size).
 * Registering the same gauge and labels again replaces the reader (a module loaded twice, a reopened database).
 */
export const gaugeOf = m.gaugeOf;

/** One finished request, by its route class (the edge calls it once per request). */
export const observeRequest = m.observeRequest;

/** What a request is, for the request metrics and its statements' source: few values (bounded label cardinality). */
export const ROUTE_CLASSES = [
  'catalog_updates',
  'catalog',
  'admin',
  'account',
  'api_other',
  'mcp',
  'probe',
  'metrics',
  'trpc',
  'page',
] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

export function routeClass(pathname: string): RouteClass {
  if (pathname.startsWith('/api/v1/')) {
    if (pathname === '/api/v1/catalog/templates/updates') return 'catalog_updates';
    if (pathname.startsWith('/api/v1/catalog/')) return 'catalog';
    if (pathname.startsWith('/api/v1/admin/')) return 'admin';
    if (pathname.startsWith('/api/v1/account/')) return 'account';
    return 'api_other';
  }
  if (pathname === '/mcp') return 'mcp';
  if (pathname === '/healthz' || pathname === '/readyz') return 'probe';
  if (pathname === '/metrics') return 'metrics';
  if (pathname.startsWith('/api/trpc/')) return 'trpc';
  return 'page';
}

/**
 * A counter bumped on every request (the cache look-ups): kept as plain numbers, one per label value, and added to
 * the Prometheus counter when it is read (a scrape, prom-client's `collect`), so a 304 poll pays an increment instead
 * of prom-client's label hashing and validation.
 */
function countedWhenRead(counter: Counter<string>, values: readonly string[]): Float64Array {
  const pending = new Float64Array(values.length);
  (counter as { collect?: () => void }).collect = () => {
    for (let i = 0; i < values.length; i++) {
      if (pending[i] === 0) continue;
      counter.labels(values[i]!).inc(pending[i]!);
      pending[i] = 0;
    }
  };
  return pending;
}
const HIT_MISS = ['hit', 'miss'] as const;
/** shared: a miss that waited for the same answer another request was computing (responseCache.ts computeOnce). */
const CACHE_RESULTS = ['hit', 'miss', 'shared'] as const;
const responseCache = countedWhenRead(m.responseCache, CACHE_RESULTS);
const credentialCache = countedWhenRead(m.credentialCache, HIT_MISS);
const catalogReads = bound((target) => m.catalogReads.labels(target!));
const rateLimited = bound((limit) => m.rateLimited.labels(limit!));
const mcpCalls = bound((outcome) => m.mcpCalls.labels(outcome!));
const statements = bound((pool, source) => m.statements.labels(pool!, source!));

export const hubMetrics = {
  responseCache: (result: (typeof CACHE_RESULTS)[number]) => void (responseCache[CACHE_RESULTS.indexOf(result)]! += 1),
  credentialCache: (hit: boolean) => void (credentialCache[hit ? 0 : 1]! += 1),
  catalogRead: (target: 'replica' | 'primary' | 'fallback') => catalogReads(target).inc(),
  statementTimeout: () => m.statementTimeouts.inc(),
  rateLimited: (limit: string) => rateLimited(limit).inc(),
  mcpCall: (upstreamStatus: number | null) =>
    mcpCalls(
      upstreamStatus === null
        ? 'no_answer'
        : upstreamStatus < 300
          ? 'ok'
          : upstreamStatus < 500
            ? 'client_error'
            : 'upstream_error',
    ).inc(),
  /**
   * Statements of one pool, to count from the driver's per-statement hook: `inc(source)` with what sent the
   * statement (log.ts currentWork(); 'other' when nothing is known, e.g. start-up).
   */
  statementCounter: (pool: string) => ({ inc: (source = 'other') => statements(pool, source).inc() }),
};
