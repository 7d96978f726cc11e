/**
 * Core's Prometheus metrics (prom-client), served at GET /metrics behind CORE_METRICS_TOKEN (off without it):
 * requests by route class and status with latency, and the Hub catalog sync — how long since the copy was
 * last confirmed current (the sync lag), the last sync's result, syncs by result.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type SyncOutcome = 'ok' | 'not_modified' | 'unavailable' | 'key_refused' | 'not_configured' | 'error';
const OUTCOMES: SyncOutcome[] = ['ok', 'not_modified', 'unavailable', 'key_refused', 'not_configured', 'error'];

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'core_http_requests_total',
    help: 'Requests answered, by route class and status',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'core_http_request_duration_seconds',
    help: 'Time to answer a request, by route class',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const syncs = new Counter({
    name: 'core_hub_syncs_total',
    help: 'Catalog syncs with the Hub, by result',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const state = { lastSuccess: 0, lastResult: null as SyncOutcome | null };
  new Gauge({
    name: 'core_hub_sync_lag_seconds',
    help: 'Seconds since the catalog copy was last confirmed current by the Hub (-1: never)',
    registers: [registry],
    collect() {
      this.set(state.lastSuccess ? (Date.now() - state.lastSuccess) / 1000 : -1);
    },
  });
  new Gauge({
    name: 'core_hub_sync_last_success_timestamp_seconds',
    help: 'When the last sync succeeded (Unix time; 0: never)',
    registers: [registry],
    collect() {
      this.set(state.lastSuccess / 1000);
    },
  });
  new Gauge({
    name: 'core_hub_sync_last_result',
    help: 'The last sync result (1 for the result it was, 0 for the others)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      for (const r of OUTCOMES) this.set({ result: r }, state.lastResult === r ? 1 : 0);
    },
  });
  return { registry, requests, duration, syncs, state };
}

const m = ((globalThis as { __coreMetrics?: ReturnType<typeof create> }).__coreMetrics ??= create());
export const coreMetricsRegistry = m.registry;

export function recordSync(outcome: SyncOutcome): void {
  m.syncs.labels(outcome).inc();
  m.state.lastResult = outcome;
  if (outcome === 'ok' || outcome === 'not_modified') m.state.lastSuccess = Date.now();
}

function routeClass(path: string): string {
  if (path === '/healthz' || path === '/readyz') return 'probe';
  if (path === '/metrics') return 'metrics';
  if (path.startsWith('/api/v1/catalog')) return 'catalog';
  if (path.startsWith('/api/v1/')) return 'api';
  if (path.startsWith('/mcp')) return 'mcp';
  return 'page';
}

export function observeRequest(path: string, status: number, durationMs: number): void {
  const route = routeClass(path);
  m.requests.labels(route, String(status)).inc();
  m.duration.labels(route).observe(durationMs / 1000);
}
