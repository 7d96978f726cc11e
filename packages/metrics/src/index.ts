/**
 * The Prometheus metrics of both services (prom-client), written once: each service has one registry with Node's
 * default metrics and the same request metrics (`<service>_http_requests_total` by route class and status,
 * `<service>_http_request_duration_seconds` by route class, and `<service>_http_response_bytes_total` where the
 * service knows its answers' lengths), and declares its own figures on it. Per-event updates go to label children bound once (a Map look-up and an add),
 * never to prom-client's label lookup by object. The service decides its route classes (few values: bounded
 * cardinality) and serves the registry at /metrics behind its token.
 */
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type { Counter, Gauge, Histogram, Registry };

/** One metric with its values, as getMetricsAsJSON() gives it: the form in which figures cross threads. */
export type MetricSnapshot = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

/** The registry's Prometheus text with figures counted elsewhere in the process (another thread's) added to its own. */
export async function metricsWith(registry: Registry, others: MetricSnapshot[]): Promise<string> {
  if (others.length === 0) return registry.metrics();
  return AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), others]).metrics();
}

/** Request latency buckets, in seconds: 1 ms to 10 s. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A gauge's value, read when /metrics is scraped (a queue's length, a pool's size). */
export type Reader = () => number;

/**
 * `labels(...values)` of a metric, each combination bound once: the child is kept, so a hot path pays a Map
 * look-up instead of prom-client's label handling.
 */
export function bound<T>(labels: (...values: string[]) => T): (...values: string[]) => T {
  const children = new Map<string, T>();
  return (...values) => {
    const key = values.join('\0');
    let child = children.get(key);
    if (child === undefined) children.set(key, (child = labels(...values)));
    return child;
  };
}

export interface MetricsOptions {
  /** Count answer bytes by route class: off where the answers' lengths are not known when the request is counted. */
  responseBytes?: boolean;
}

/**
 * How often the event-loop delay (nodejs_eventloop_lag_*) is sampled. prom-client's default, 10 ms, is a timer that
 * wakes an idle process 100 times a second: at a fleet's pace (~83 polls/s, each on its own wake-up) those wake-ups
 * cost more CPU than the polls (issue 36, docs/performance.md). At 100 ms a stall longer than that is still always
 * seen, shorter ones in proportion to their length.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

function create(service: string, { responseBytes: countBytes = true }: MetricsOptions) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

  const counter = <L extends string = string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string = string>(
    name: string,
    help: string,
    buckets: number[],
    labelNames: readonly L[] = [],
  ) => new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
  /** A gauge; `collect` sets its values when /metrics is scraped. */
  const gauge = <L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (g: Gauge<L>) => void,
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      ...(collect && {
        collect(this: Gauge<L>) {
          collect(this);
        },
      }),
    });

  const requests = counter(`${service}_http_requests_total`, 'Requests answered, by route class and status', [
    'route',
    'status',
  ]);
  const duration = histogram(
    `${service}_http_request_duration_seconds`,
    'Time to answer a request, by route class',
    DURATION_BUCKETS,
    ['route'],
  );
  const responseBytes = countBytes
    ? counter(`${service}_http_response_bytes_total`, 'Bytes of answer bodies (Content-Length), by route class', [
        'route',
      ])
    : null;
  /**
   * The request metrics are counted as plain numbers per route class (a request pays a few additions, not prom-client's
   * label hashing and validation, ~2 µs of a 304 poll) and added to the three metrics when they are read (a scrape:
   * prom-client's `collect`). The histogram has no public way to add counts in bulk: one pending observation goes
   * through `observe` (which makes the route's entry), the rest are added to that entry.
   */
  interface RouteTally {
    statuses: Map<number, number>;
    /** Observations by bucket: index i for DURATION_BUCKETS[i], the last for those above every bucket (+Inf only). */
    buckets: Float64Array;
    sum: number;
    count: number;
    last: number;
    bytes: number;
  }
  const tallies = new Map<string, RouteTally>();
  const bucketOf = (seconds: number) => {
    let b = 0;
    while (b < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[b]!) b++;
    return b;
  };

  /** One finished request, by its route class (the service's edge calls it once per request). */
  function observeRequest(route: string, status: number, durationMs: number, bodyBytes = 0): void {
    let tally = tallies.get(route);
    if (!tally) {
      tally = {
        statuses: new Map(),
        buckets: new Float64Array(DURATION_BUCKETS.length + 1),
        sum: 0,
        count: 0,
        last: 0,
        bytes: 0,
      };
      tallies.set(route, tally);
    }
    tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
    const seconds = durationMs / 1000;
    tally.buckets[bucketOf(seconds)]! += 1;
    tally.sum += seconds;
    tally.count += 1;
    tally.last = seconds;
    if (bodyBytes > 0) tally.bytes += bodyBytes;
  }

  type HistogramEntry = {
    labels: Record<string, string>;
    bucketValues: Record<number, number>;
    sum: number;
    count: number;
  };
  function addPending(): void {
    for (const [route, tally] of tallies) {
      for (const [status, n] of tally.statuses) requests.inc({ route, status: String(status) }, n);
      tally.statuses.clear();
      if (responseBytes && tally.bytes > 0) responseBytes.inc({ route }, tally.bytes);
      tally.bytes = 0;
      if (tally.count === 0) continue;
      duration.observe({ route }, tally.last);
      tally.buckets[bucketOf(tally.last)]! -= 1;
      const entry = Object.values((duration as unknown as { hashMap: Record<string, HistogramEntry> }).hashMap).find(
        (e) => e.labels.route === route,
      )!;
      DURATION_BUCKETS.forEach((bound, i) => (entry.bucketValues[bound]! += tally.buckets[i]!));
      entry.sum += tally.sum - tally.last;
      entry.count += tally.count - 1;
      tally.buckets.fill(0);
      tally.sum = 0;
      tally.count = 0;
    }
  }
  for (const metric of [requests, duration, responseBytes])
    if (metric) (metric as unknown as { collect: () => void }).collect = addPending;

  const readers = new Map<string, { gauge: string; labels: Record<string, string>; read: Reader }>();
  const readGauges = new Set<string>();
  /**
   * A gauge read when scraped: `read` answers the current value for these labels. Registering the same gauge
   * and labels again replaces the reader (a module loaded twice, a reopened database).
   */
  function gaugeOf(name: string, help: string, labels: Record<string, string>, read: Reader): void {
    if (!readGauges.has(name)) {
      readGauges.add(name);
      gauge(name, help, Object.keys(labels), (g) => {
        g.reset();
        for (const r of readers.values()) if (r.gauge === name) g.set(r.labels, r.read());
      });
    }
    readers.set(`${name}${JSON.stringify(labels)}`, { gauge: name, labels, read });
  }

  return { registry, counter, histogram, gauge, gaugeOf, observeRequest };
}

export type ServiceMetrics = ReturnType<typeof create>;

/**
 * The service's metrics, once per process: `define` declares its own figures on the registry the first time;
 * a module evaluated again (two bundles of one process) gets the same registry and figures, not a second set.
 */
export function serviceMetrics<T>(
  service: string,
  define: (metrics: ServiceMetrics) => T,
  options: MetricsOptions = {},
): ServiceMetrics & T {
  const key = Symbol.for(`@shared/metrics ${service}`);
  const store = globalThis as unknown as Record<symbol, ServiceMetrics & T>;
  if (!store[key]) {
    const metrics = create(service, options);
    store[key] = { ...metrics, ...define(metrics) };
  }
  return store[key];
}
