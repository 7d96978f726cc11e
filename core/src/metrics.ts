/**
 * Core's Prometheus metrics (prom-client), served at GET /metrics behind CORE_METRICS_TOKEN (off without it):
 * requests by route class and status with latency, and the Hub catalog sync — how long since the copy was
 * last confirmed current (the sync lag), the last sync's result, syncs by result; the container engine — its
 * state, deployments by observed state, reconcile passes and their duration, engine calls and errors.
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
  const passes = new Counter({
    name: 'core_reconcile_passes_total',
    help: 'Reconciler passes, by result (ok; standby: another Core process acts on the engine; engine_down; error)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const passDuration = new Histogram({
    name: 'core_reconcile_pass_duration_seconds',
    help: 'Time of a reconciler pass (Core and engine time together)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const engineCalls = new Counter({
    name: 'core_engine_calls_total',
    help: 'Calls to the container engine, by call (list, inspect, create, start, ...)',
    labelNames: ['call'] as const,
    registers: [registry],
  });
  const engineCallDuration = new Histogram({
    name: 'core_engine_call_duration_seconds',
    help: 'Time waiting for the container engine, by call',
    labelNames: ['call'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const engineErrors = new Counter({
    name: 'core_engine_errors_total',
    help: 'Failed calls to the container engine, by call and kind (engine_down, image_not_found, port_in_use, ...)',
    labelNames: ['call', 'kind'] as const,
    registers: [registry],
  });
  // Set from the database when /metrics is scraped (setRuntimeState): every Core process reports the same.
  const deployments = new Gauge({
    name: 'core_deployments',
    help: 'Deployments by observed state (all unknown while the engine is down or absent)',
    labelNames: ['state'] as const,
    registers: [registry],
  });
  const engine = new Gauge({
    name: 'core_engine_state',
    help: 'The container engine as this process sees it (1 for the state it is in: up, down, none)',
    labelNames: ['state'] as const,
    registers: [registry],
  });
  return {
    registry,
    requests,
    duration,
    syncs,
    state,
    passes,
    passDuration,
    engineCalls,
    engineCallDuration,
    engineErrors,
    deployments,
    engine,
  };
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

export type PassResult = 'ok' | 'standby' | 'engine_down' | 'error';

export function recordReconcilePass(result: PassResult, durationMs: number): void {
  m.passes.labels(result).inc();
  m.passDuration.observe(durationMs / 1000);
}

/** One call to the engine (runtime/metered.ts): how long it took, and its failure's kind when it failed. */
export function recordEngineCall(call: string, durationMs: number | null, errorKind?: string): void {
  m.engineCalls.labels(call).inc();
  if (durationMs !== null) m.engineCallDuration.labels(call).observe(durationMs / 1000);
  if (errorKind) m.engineErrors.labels(call, errorKind).inc();
}

/** Calls to the engine so far and the seconds spent waiting for them, by call (the runtime bench reads it). */
export async function engineCallTotals(): Promise<Record<string, { calls: number; seconds: number }>> {
  const totals: Record<string, { calls: number; seconds: number }> = {};
  for (const v of (await m.engineCalls.get()).values) totals[String(v.labels.call)] = { calls: v.value, seconds: 0 };
  for (const v of (await m.engineCallDuration.get()).values)
    if (v.metricName === 'core_engine_call_duration_seconds_sum')
      (totals[String(v.labels.call)] ??= { calls: 0, seconds: 0 }).seconds = v.value;
  return totals;
}

/** The engine's state and the deployments by observed state, as /metrics is about to answer. */
export function setRuntimeState(engine: 'up' | 'down' | 'none', byState: Record<string, number>): void {
  for (const s of ['up', 'down', 'none'] as const) m.engine.set({ state: s }, engine === s ? 1 : 0);
  m.deployments.reset();
  for (const [state, n] of Object.entries(byState)) m.deployments.set({ state }, n);
}
