/**
 * Core's Prometheus metrics, served at GET /metrics behind CORE_METRICS_TOKEN (off without it): the registry and
 * request metrics of @shared/metrics (requests by route class and status, their latency), and Core's own
 * figures: the Hub catalog sync — how long since the copy was last confirmed current (the sync lag), the last
 * sync's result, syncs by result; the container engine — its state, deployments by observed state, reconcile
 * passes and their duration, engine calls and errors.
 */
import { bound, DURATION_BUCKETS, serviceMetrics } from '@shared/metrics';

export type SyncOutcome = 'ok' | 'not_modified' | 'unavailable' | 'key_refused' | 'not_configured' | 'error';
const OUTCOMES: SyncOutcome[] = ['ok', 'not_modified', 'unavailable', 'key_refused', 'not_configured', 'error'];

// No answer-bytes metric: Hono's answers carry no Content-Length yet when the request is counted.
const m = serviceMetrics(
  'core',
  ({ counter, histogram, gauge }) => {
    const state = { lastSuccess: 0, lastResult: null as SyncOutcome | null };
    gauge(
      'core_hub_sync_lag_seconds',
      'Seconds since the catalog copy was last confirmed current by the Hub (-1: never)',
      [],
      (g) => g.set(state.lastSuccess ? (Date.now() - state.lastSuccess) / 1000 : -1),
    );
    gauge(
      'core_hub_sync_last_success_timestamp_seconds',
      'When the last sync succeeded (Unix time; 0: never)',
      [],
      (g) => g.set(state.lastSuccess / 1000),
    );
    gauge(
      'core_hub_sync_last_result',
      'The last sync result (1 for the result it was, 0 for the others)',
      ['result'],
      (g) => {
        for (const r of OUTCOMES) g.set({ result: r }, state.lastResult === r ? 1 : 0);
      },
    );
    return {
      state,
      syncs: counter('core_hub_syncs_total', 'Catalog syncs with the Hub, by result', ['result']),
      passes: counter(
        'core_reconcile_passes_total',
        'Reconciler passes, by result (ok; standby: another Core process acts on the engine; engine_down; error)',
        ['result'],
      ),
      passDuration: histogram(
        'core_reconcile_pass_duration_seconds',
        'Time of a reconciler pass (Core and engine time together)',
        [...DURATION_BUCKETS, 30],
      ),
      engineCalls: counter(
        'core_engine_calls_total',
        'Calls to the container engine, by call (list, inspect, create, start, ...)',
        ['call'],
      ),
      engineCallDuration: histogram(
        'core_engine_call_duration_seconds',
        'Time waiting for the container engine, by call',
        DURATION_BUCKETS,
        ['call'],
      ),
      engineErrors: counter(
        'core_engine_errors_total',
        'Failed calls to the container engine, by call and kind (engine_down, image_not_found, port_in_use, ...)',
        ['call', 'kind'],
      ),
      // Set from the database when /metrics is scraped (setRuntimeState): every Core process reports the same.
      deployments: gauge(
        'core_deployments',
        'Deployments by observed state (all unknown while the engine is down or absent)',
        ['state'],
      ),
      engine: gauge(
        'core_engine_state',
        'The container engine as this process sees it (1 for the state it is in: up, down, none)',
        ['state'],
      ),
    };
  },
  { responseBytes: false },
);
export const coreMetricsRegistry = m.registry;

const syncs = bound((result) => m.syncs.labels(result!));
const passes = bound((result) => m.passes.labels(result!));
const engineCalls = bound((call) => m.engineCalls.labels(call!));
const engineCallDuration = bound((call) => m.engineCallDuration.labels(call!));

export function recordSync(outcome: SyncOutcome): void {
  syncs(outcome).inc();
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

/** One finished request (the API calls it once per request). */
export function observeRequest(path: string, status: number, durationMs: number): void {
  m.observeRequest(routeClass(path), status, durationMs);
}

export type PassResult = 'ok' | 'standby' | 'engine_down' | 'error';

export function recordReconcilePass(result: PassResult, durationMs: number): void {
  passes(result).inc();
  m.passDuration.observe(durationMs / 1000);
}

/** One call to the engine (runtime/metered.ts): how long it took, and its failure's kind when it failed. */
export function recordEngineCall(call: string, durationMs: number | null, errorKind?: string): void {
  engineCalls(call).inc();
  if (durationMs !== null) engineCallDuration(call).observe(durationMs / 1000);
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
