/**
 * The Hub's Prometheus metrics (prom-client), served at GET /metrics behind HUB_METRICS_TOKEN
 * (server/http/metrics.ts). Every module updates its own figures through this one registry; per-request
 * updates touch pre-bound label children (a Map look-up and an add), never a label lookup by object.
 * Depends on nothing of the Hub, so any layer may import it.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

type Provider = () => number;

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'hub_http_requests_total',
    help: 'Requests answered, by route class and status',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'hub_http_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by route class',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const responseBytes = new Counter({
    name: 'hub_http_response_bytes_total',
    help: 'Bytes of answer bodies (Content-Length), by route class',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const responseCache = new Counter({
    name: 'hub_response_cache_lookups_total',
    help: 'REST response cache look-ups of cacheable catalog reads',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const credentialCache = new Counter({
    name: 'hub_credential_cache_lookups_total',
    help: 'Secret (instance key, PAT) look-ups in the credential cache',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const statements = new Counter({
    name: 'hub_db_statements_total',
    help: 'Statements sent to the database, by connection pool and by what sent them (a route class or a background job)',
    labelNames: ['pool', 'source'] as const,
    registers: [registry],
  });
  const statementTimeouts = new Counter({
    name: 'hub_db_statement_timeouts_total',
    help: 'Requests failed by statement_timeout (SQLSTATE 57014)',
    registers: [registry],
  });
  const catalogReads = new Counter({
    name: 'hub_catalog_reads_total',
    help: 'Catalog reads by where they ran (fallback: failed on a replica, then run on the primary)',
    labelNames: ['target'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'hub_rate_limit_refusals_total',
    help: 'Calls refused 429, by the limit they hit',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const mcpCalls = new Counter({
    name: 'hub_mcp_calls_total',
    help: 'Calls proxied at /mcp, by outcome (the instance answered 2xx, 4xx, 5xx, or no answer)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const providers = new Map<string, { gauge: string; labels: Record<string, string>; read: Provider }>();
  const gauges = new Map<string, Gauge<string>>();
  function gauge(name: string, help: string, labelNames: string[]) {
    let g = gauges.get(name);
    if (!g) {
      g = new Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        collect() {
          this.reset();
          for (const p of providers.values()) if (p.gauge === name) this.set(p.labels, p.read());
        },
      });
      gauges.set(name, g);
    }
    return g;
  }
  return {
    registry,
    requests,
    duration,
    responseBytes,
    responseCache,
    credentialCache,
    statements,
    statementTimeouts,
    catalogReads,
    rateLimited,
    mcpCalls,
    gauge,
    providers,
  };
}

const m = ((globalThis as { __hubMetrics?: ReturnType<typeof create> }).__hubMetrics ??= create());

/** The Hub's registry (the /metrics answer). */
export const metricsRegistry = m.registry;

/**
 * A gauge read when scraped: `read` answers the current value (a queue's length, a pool's size).
 * Registering the same gauge and labels again replaces the reader (a module loaded twice, a reopened database).
 */
export function gaugeOf(name: string, help: string, labels: Record<string, string>, read: Provider): void {
  m.gauge(name, help, Object.keys(labels));
  m.providers.set(`${name}${JSON.stringify(labels)}`, { gauge: name, labels, read });
}

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

const requestChildren = new Map<string, { count: { inc(): void } }>();
const routeChildren = new Map<string, { duration: { observe(v: number): void }; bytes: { inc(v: number): void } }>();

/** One finished request, by its route class (the edge calls it once per request). */
export function observeRequest(route: string, status: number, durationMs: number, bodyBytes: number): void {
  const key = `${route} ${status}`;
  let child = requestChildren.get(key);
  if (!child) requestChildren.set(key, (child = { count: m.requests.labels(route, String(status)) }));
  child.count.inc();
  let perRoute = routeChildren.get(route);
  if (!perRoute)
    routeChildren.set(route, (perRoute = { duration: m.duration.labels(route), bytes: m.responseBytes.labels(route) }));
  perRoute.duration.observe(durationMs / 1000);
  if (bodyBytes > 0) perRoute.bytes.inc(bodyBytes);
}

const responseCacheHit = m.responseCache.labels('hit');
const responseCacheMiss = m.responseCache.labels('miss');
const credentialHit = m.credentialCache.labels('hit');
const credentialMiss = m.credentialCache.labels('miss');
const replicaRead = m.catalogReads.labels('replica');
const primaryRead = m.catalogReads.labels('primary');
const fallbackRead = m.catalogReads.labels('fallback');

export const hubMetrics = {
  responseCache: (hit: boolean) => (hit ? responseCacheHit : responseCacheMiss).inc(),
  credentialCache: (hit: boolean) => (hit ? credentialHit : credentialMiss).inc(),
  catalogRead: (target: 'replica' | 'primary' | 'fallback') =>
    (target === 'replica' ? replicaRead : target === 'primary' ? primaryRead : fallbackRead).inc(),
  statementTimeout: () => m.statementTimeouts.inc(),
  rateLimited: (limit: string) => m.rateLimited.labels(limit).inc(),
  mcpCall: (upstreamStatus: number | null) =>
    m.mcpCalls
      .labels(
        upstreamStatus === null
          ? 'no_answer'
          : upstreamStatus < 300
            ? 'ok'
            : upstreamStatus < 500
              ? 'client_error'
              : 'upstream_error',
      )
      .inc(),
  /**
   * Statements of one pool, to count from the driver's per-statement hook: `inc(source)` with what sent the
   * statement (log.ts currentWork(); 'other' when nothing is known, e.g. start-up).
   */
  statementCounter: (pool: string) => {
    const bySource = new Map<string, { inc(): void }>();
    return {
      inc(source = 'other') {
        let child = bySource.get(source);
        if (!child) bySource.set(source, (child = m.statements.labels(pool, source)));
        child.inc();
      },
    };
  },
};
