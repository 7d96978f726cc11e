import { describe, expect, it } from 'vitest';
import { bound, serviceMetrics } from '../src/index';

describe('serviceMetrics', () => {
  it('serves the request metrics under the service name, with the answer bytes', async () => {
    const m = serviceMetrics('pkgtest_requests', () => ({}));
    m.observeRequest('catalog', 200, 12, 512);
    m.observeRequest('catalog', 200, 3);
    m.observeRequest('probe', 503, 1);
    const text = await m.registry.metrics();
    expect(text).toContain('pkgtest_requests_http_requests_total{route="catalog",status="200"} 2');
    expect(text).toContain('pkgtest_requests_http_requests_total{route="probe",status="503"} 1');
    expect(text).toContain('pkgtest_requests_http_request_duration_seconds_count{route="catalog"} 2');
    expect(text).toContain('pkgtest_requests_http_request_duration_seconds_bucket{le="0.025",route="catalog"} 2');
    expect(text).toContain('pkgtest_requests_http_response_bytes_total{route="catalog"} 512');
    expect(text).toContain('process_cpu_seconds_total'); // Node's default metrics
  });

  it('counts requests between scrapes exactly as observed one by one: buckets, +Inf, sum, count, bytes', async () => {
    const m = serviceMetrics('pkgtest_tally', () => ({}));
    const name = 'pkgtest_tally_http_request_duration_seconds';
    for (const ms of [0.5, 1, 3, 20_000]) m.observeRequest('catalog', 304, ms, 10);
    let text = await m.registry.metrics();
    expect(text).toContain(`${name}_bucket{le="0.001",route="catalog"} 2`);
    expect(text).toContain(`${name}_bucket{le="0.005",route="catalog"} 3`);
    expect(text).toContain(`${name}_bucket{le="10",route="catalog"} 3`);
    expect(text).toContain(`${name}_bucket{le="+Inf",route="catalog"} 4`);
    expect(text).toContain(`${name}_sum{route="catalog"} 20.0045`);
    expect(text).toContain(`${name}_count{route="catalog"} 4`);
    expect(text).toContain('pkgtest_tally_http_response_bytes_total{route="catalog"} 40');
    // Counted since the last scrape, added to what was there: nothing is counted twice or lost.
    m.observeRequest('catalog', 304, 2);
    m.observeRequest('catalog', 500, 0.2);
    text = await m.registry.metrics();
    expect(text).toContain(`${name}_bucket{le="0.001",route="catalog"} 3`);
    expect(text).toContain(`${name}_bucket{le="0.0025",route="catalog"} 4`);
    expect(text).toContain(`${name}_count{route="catalog"} 6`);
    expect(text).toContain('pkgtest_tally_http_requests_total{route="catalog",status="304"} 5');
    expect(text).toContain('pkgtest_tally_http_requests_total{route="catalog",status="500"} 1');
    expect(await m.registry.metrics()).toContain(`${name}_count{route="catalog"} 6`);
  });

  it('leaves the answer bytes out when asked to', async () => {
    const m = serviceMetrics('pkgtest_nobytes', () => ({}), { responseBytes: false });
    m.observeRequest('api', 200, 5, 100);
    const text = await m.registry.metrics();
    expect(text).toContain('pkgtest_nobytes_http_requests_total{route="api",status="200"} 1');
    expect(text).not.toContain('pkgtest_nobytes_http_response_bytes_total');
  });

  it("declares a service's figures once per process: a second evaluation gets the same registry and figures", async () => {
    let defined = 0;
    const define = ({ counter }: Parameters<Parameters<typeof serviceMetrics>[1]>[0]) => {
      defined += 1;
      return { jobs: counter('pkgtest_once_jobs_total', 'Jobs', ['kind']) };
    };
    const first = serviceMetrics('pkgtest_once', define);
    const second = serviceMetrics('pkgtest_once', define);
    expect(defined).toBe(1);
    expect(second.registry).toBe(first.registry);
    second.jobs.labels('a').inc();
    expect(await first.registry.metrics()).toContain('pkgtest_once_jobs_total{kind="a"} 1');
  });

  it('reads a gauge when scraped; the same gauge and labels again replace the reader', async () => {
    const m = serviceMetrics('pkgtest_gauge', () => ({}));
    let queued = 3;
    m.gaugeOf('pkgtest_gauge_queue', 'Queued', { queue: 'a' }, () => queued);
    m.gaugeOf('pkgtest_gauge_queue', 'Queued', { queue: 'b' }, () => 7);
    expect(await m.registry.metrics()).toContain('pkgtest_gauge_queue{queue="a"} 3');
    queued = 4;
    expect(await m.registry.metrics()).toContain('pkgtest_gauge_queue{queue="a"} 4');
    m.gaugeOf('pkgtest_gauge_queue', 'Queued', { queue: 'a' }, () => 9);
    const text = await m.registry.metrics();
    expect(text).toContain('pkgtest_gauge_queue{queue="a"} 9');
    expect(text).toContain('pkgtest_gauge_queue{queue="b"} 7');
  });

  it('runs a collecting gauge when scraped', async () => {
    const m = serviceMetrics('pkgtest_collect', ({ gauge }) => {
      let scrapes = 0;
      gauge('pkgtest_collect_scrapes', 'Scrapes so far', [], (g) => g.set(++scrapes));
      return {};
    });
    await m.registry.metrics();
    expect(await m.registry.metrics()).toContain('pkgtest_collect_scrapes 2');
  });
});

describe('bound', () => {
  it('asks for a label combination once and hands the same child back', () => {
    const asked: string[] = [];
    const child = bound((...values) => {
      asked.push(values.join('/'));
      return { values };
    });
    expect(child('a', 'b')).toBe(child('a', 'b'));
    expect(child('a', 'c')).not.toBe(child('a', 'b'));
    expect(child('ab')).not.toBe(child('a', 'b'));
    expect(asked).toEqual(['a/b', 'a/c', 'ab']);
  });
});
