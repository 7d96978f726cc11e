/**
 * Load generation with autocannon (in the bench process, never in the server's): a fixed number of
 * keep-alive connections for a fixed duration (or a fixed number of requests). Latencies are taken from
 * autocannon's per-response event in fractional milliseconds (its own histogram rounds to whole ms, too
 * coarse for a 2 ms target), so percentiles here are exact over every response.
 */
import autocannon from 'autocannon';

export interface RequestSpec {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  base: string;
  connections: number;
  /** Seconds; or `amount` requests in total. */
  durationSec?: number;
  amount?: number;
  /** Called for every request (rotate credentials, paths, JSON-RPC ids). */
  next?: () => RequestSpec;
  /**
   * Or a fixed list each connection cycles through: autocannon builds each request's bytes once, so the load
   * generator spends nothing per request (it shares the machine's two cores with the server it measures).
   */
  requests?: RequestSpec[];
  /** Statuses that count as correct answers; anything else is an error of the run. */
  expect: number[];
  /** Requests a second over all connections (autocannon's overallRate): a paced load instead of as fast as it goes. */
  overallRate?: number;
}

export interface LoadResult {
  requests: number;
  durationSec: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
  statuses: Record<string, number>;
  /** Responses with a status outside `expect`, plus connection errors (timeouts are counted apart). */
  unexpected: number;
  errors: number;
  timeouts: number;
  bytesPerResponse: number;
}

/** The p-th percentile of ascending values (nearest rank). */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const started = process.hrtime.bigint();
    const instance = autocannon(
      {
        url: opts.base,
        connections: opts.connections,
        ...(opts.amount ? { amount: opts.amount } : { duration: opts.durationSec ?? 10 }),
        ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
        // Generous: a slow answer is a result to report, not an error of the run.
        timeout: 30,
        requests: opts.requests
          ? opts.requests.map((spec) => ({
              method: spec.method ?? 'GET',
              path: spec.path,
              headers: spec.headers ?? {},
              ...(spec.body !== undefined ? { body: spec.body } : {}),
            }))
          : [
              {
                setupRequest: (req: Record<string, any>) => {
                  const spec = opts.next!();
                  return {
                    ...req,
                    method: spec.method ?? 'GET',
                    path: spec.path,
                    headers: { ...req.headers, ...spec.headers },
                    ...(spec.body !== undefined ? { body: spec.body } : {}),
                  };
                },
              },
            ],
      },
      (err, result) => {
        if (err) return reject(err);
        const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
        const sorted = Float64Array.from(latencies).sort();
        const statuses: Record<string, number> = {};
        for (const [code, { count }] of Object.entries(result.statusCodeStats as Record<string, { count: number }>))
          statuses[code] = count;
        const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
        const wrong = Object.entries(statuses)
          .filter(([code]) => !opts.expect.includes(Number(code)))
          .reduce((a, [, n]) => a + n, 0);
        const durationSec = opts.amount ? elapsed : Number(result.duration) || elapsed;
        resolve({
          requests: answered,
          durationSec,
          rps: answered / durationSec,
          p50: percentile(sorted, 50),
          p90: percentile(sorted, 90),
          p99: percentile(sorted, 99),
          mean: latencies.length ? latencies.reduce((a, b) => a + b, 0) / latencies.length : NaN,
          max: sorted.length ? sorted[sorted.length - 1]! : NaN,
          statuses,
          unexpected: wrong + Number(result.errors ?? 0) - Number(result.timeouts ?? 0),
          errors: Number(result.errors ?? 0),
          timeouts: Number(result.timeouts ?? 0),
          bytesPerResponse: answered ? Number(result.throughput?.total ?? 0) / answered : 0,
        });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) =>
      latencies.push(responseTime),
    );
  });
}

/** Cycles through a list. */
export function cycle<T>(items: T[]): () => T {
  if (items.length === 0) throw new Error('cycle() of an empty list');
  let i = 0;
  return () => items[i++ % items.length]!;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Several windows of one server as one result: counts and time summed, so req/s is over all of them; the latency
 * percentiles are the median of the windows' (the raw latencies are not kept).
 */
export function mergeWindows(windows: LoadResult[]): LoadResult {
  const sum = (pick: (w: LoadResult) => number) => windows.reduce((a, w) => a + pick(w), 0);
  const requests = sum((w) => w.requests);
  const durationSec = sum((w) => w.durationSec);
  const statuses: Record<string, number> = {};
  for (const w of windows)
    for (const [code, n] of Object.entries(w.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  return {
    requests,
    durationSec,
    rps: durationSec > 0 ? requests / durationSec : 0,
    p50: median(windows.map((w) => w.p50)),
    p90: median(windows.map((w) => w.p90)),
    p99: median(windows.map((w) => w.p99)),
    mean: requests > 0 ? sum((w) => w.mean * w.requests) / requests : NaN,
    max: Math.max(...windows.map((w) => w.max)),
    statuses,
    unexpected: sum((w) => w.unexpected),
    errors: sum((w) => w.errors),
    timeouts: sum((w) => w.timeouts),
    bytesPerResponse: requests > 0 ? sum((w) => w.bytesPerResponse * w.requests) / requests : 0,
  };
}
