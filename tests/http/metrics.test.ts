/**
 * GET /metrics (server/http/metrics.ts): off without HUB_METRICS_TOKEN, 401 without the token, and the
 * figures move with real calls through the REST handler: response-cache look-ups (identical misses at once computed
 * once) and credential-cache look-ups, statements (by what sent them: the request's route class, or the background
 * job), catalog reads.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { getDatabase } from '../../server/db/client';
import { createEdge } from '../../server/http/edge';
import { metricsAnswer } from '../../server/http/metrics';
import { bump, generation } from '../../server/db/invalidation';
import { computeOnce, type CachedResponse } from '../../server/api/responseCache';
import { api, createCategory, createKey, createOrg, createTemplate } from '../helpers';
import { reloadConfig } from '../../server/config';

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function scrape() {
  const answer = await metricsAnswer('Bearer test-metrics-token');
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toContain('text/plain');
  return answer.body;
}

afterEach(() => {
  delete process.env.HUB_METRICS_TOKEN;
});

it('is off without HUB_METRICS_TOKEN and refuses a missing or wrong token', async () => {
  const off = await metricsAnswer('Bearer anything');
  expect(off.status).toBe(404);
  // The one error shape, with the request id (here none: no request around the call).
  expect(JSON.parse(off.body)).toEqual({
    code: 'NOT_FOUND',
    message: expect.stringContaining('HUB_METRICS_TOKEN'),
    request_id: 'none',
  });
  process.env.HUB_METRICS_TOKEN = 'test-metrics-token';
  reloadConfig();
  const refused = await metricsAnswer(undefined);
  expect(refused.status).toBe(401);
  expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
  expect(JSON.parse(refused.body)).toMatchObject({ code: 'UNAUTHORIZED', request_id: 'none' });
  expect((await metricsAnswer('Bearer wrong-token')).status).toBe(401);
  expect((await metricsAnswer('Bearer test-metrics-token')).status).toBe(200);
});

it('counts response-cache and credential-cache look-ups and statements as calls are made', async () => {
  process.env.HUB_METRICS_TOKEN = 'test-metrics-token';
  reloadConfig();
  const org = await createOrg();
  const key = await createKey(org.id);
  const before = await scrape();
  expect((await api('/catalog/categories', { token: key.secret })).status).toBe(200);
  expect((await api('/catalog/categories', { token: key.secret })).status).toBe(200);
  const after = await scrape();
  const delta = (series: string) => value(after, series) - value(before, series);
  expect(delta('hub_response_cache_lookups_total{result="hit"}')).toBeGreaterThanOrEqual(1);
  expect(delta('hub_response_cache_lookups_total{result="miss"}')).toBeGreaterThanOrEqual(1);
  expect(delta('hub_credential_cache_lookups_total{result="hit"}')).toBeGreaterThanOrEqual(1);
  expect(delta('hub_credential_cache_lookups_total{result="miss"}')).toBeGreaterThanOrEqual(1);
  expect(delta('hub_db_statements_total{pool="primary",source="other"}')).toBeGreaterThan(0);
  // Instance-key catalog reads may use a replica; without one they run on the primary.
  expect(delta('hub_catalog_reads_total{target="primary"}')).toBeGreaterThanOrEqual(1);
  expect(after).toContain('hub_batched_write_queue{queue="download_counts"}');
  expect(after).toContain('process_cpu_seconds_total');
});

it('attributes statements to the route class of the request that sent them, and batched writes to their job', async () => {
  process.env.HUB_METRICS_TOKEN = 'test-metrics-token';
  reloadConfig();
  const org = await createOrg();
  const key = await createKey(org.id);
  const server: http.Server = createEdge(await getDatabase(), {
    handle: (_req, res) => void res.writeHead(404).end(),
  }).server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const before = await scrape();
    // A key this process has not met: its look-up and the catalog read run in the request.
    const res = await fetch(`${base}/api/v1/catalog/templates?per_page=5`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(res.status).toBe(200);
    const series = (source: string) => `hub_db_statements_total{pool="primary",source="${source}"}`;
    const during = await scrape();
    expect(value(during, series('catalog')) - value(before, series('catalog'))).toBeGreaterThanOrEqual(2);
    // The key's last-used mark is written by the batch (its timer started in that request), counted as its own.
    await expect
      .poll(async () => value(await scrape(), series('last_used')) - value(before, series('last_used')), {
        timeout: 5000,
      })
      .toBeGreaterThanOrEqual(1);
    const after = await scrape();
    expect(value(after, series('catalog'))).toBe(value(during, series('catalog')));
    // Through the edge, a refusal carries the request's id, as its X-Request-Id says.
    const refused = await fetch(`${base}/metrics`, { headers: { 'x-request-id': 'metrics-trace-0001' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('metrics-trace-0001');
    expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED', request_id: 'metrics-trace-0001' });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it('computes identical misses at once only once, counted as shared; after a write they are computed again', async () => {
  process.env.HUB_METRICS_TOKEN = 'test-metrics-token';
  reloadConfig();
  const category = await createCategory();
  await createTemplate({ categoryId: category.id, slug: `${category.slug}-one` });
  // On PostgreSQL this process also hears its own writes' notifications a moment later (a new generation): a round
  // during which the generation moved starts over, with a page no round asked before.
  for (let round = 0; ; round++) {
    expect(round).toBeLessThan(5);
    const generationBefore = generation('catalog');
    const before = await scrape();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => api(`/catalog/templates?category=${category.slug}&page=${round + 1}`)),
    );
    const after = await scrape();
    if (generation('catalog') !== generationBefore) continue;
    const delta = (series: string) => value(after, series) - value(before, series);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.headers.get('etag'))).size).toBe(1);
    expect(delta('hub_response_cache_lookups_total{result="miss"}')).toBe(1);
    expect(delta('hub_response_cache_lookups_total{result="shared"}')).toBe(5);
    break;
  }

  // A computation is shared within its catalog generation only: a request after a write computes its own answer.
  const finish: ((entry: CachedResponse) => void)[] = [];
  const computations: number[] = [];
  const compute = (computedUnder: number) => {
    computations.push(computedUnder);
    return new Promise<CachedResponse>((resolve) => finish.push(resolve));
  };
  const first = computeOnce('single-flight-test', compute);
  expect(computeOnce('single-flight-test', compute)).toBe(first);
  bump('catalog');
  const afterWrite = computeOnce('single-flight-test', compute);
  expect(afterWrite).not.toBe(first);
  expect(computations).toEqual([computations[0], computations[0]! + 1]);
  for (const resolve of finish) resolve({} as CachedResponse);
  await Promise.all([first, afterWrite]);
  // Once answered, the next miss computes again (the cache, not the flight, keeps answers).
  void computeOnce('single-flight-test', compute);
  expect(computations).toHaveLength(3);
  for (const resolve of finish) resolve({} as CachedResponse);
});
