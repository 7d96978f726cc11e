/**
 * Core's GET /metrics: off without CORE_METRICS_TOKEN, 401 without the token, and with it the Prometheus text
 * with requests by route class and status and the Hub sync's result (here: no Hub configured).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCore, type TestCore } from './helpers';

const TOKEN = 'core-metrics-test-token';
let core: TestCore;
let off: TestCore;

beforeAll(async () => {
  [core, off] = await Promise.all([startCore({ metricsToken: TOKEN }), startCore()]);
});

afterAll(async () => {
  await Promise.all([core.stop(), off.stop()]);
});

it('is off without CORE_METRICS_TOKEN', async () => {
  const res = await off.call('GET', '/metrics', { token: TOKEN });
  expect(res.status).toBe(404);
  expect(res.body.message).toContain('CORE_METRICS_TOKEN');
});

it('refuses a missing or wrong token', async () => {
  expect((await core.call('GET', '/metrics')).status).toBe(401);
  expect((await core.call('GET', '/metrics', { token: 'wrong' })).status).toBe(401);
});

it('reports requests and the last Hub sync result', async () => {
  expect((await core.call('GET', '/healthz')).status).toBe(200);
  let text = '';
  for (let i = 0; i < 50; i++) {
    const res = await core.call('GET', '/metrics', { token: TOKEN });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    text = res.body as string;
    if (text.includes('core_hub_sync_last_result{result="not_configured"} 1')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(text).toContain('core_hub_sync_last_result{result="not_configured"} 1');
  expect(text).toMatch(/core_http_requests_total\{route="probe",status="200"\} [1-9]/);
  expect(text).toContain('core_hub_sync_lag_seconds');
});
