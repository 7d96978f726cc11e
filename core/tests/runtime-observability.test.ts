/**
 * Where Core shows its engine (issue 33) when it has none (CORE_RUNTIME=none): the overview counts deployments by
 * observed state (all unknown) and says the engine is none; /readyz stays ready and says so too; /metrics carries
 * the engine's state and the deployments by observed state. tests/engine/observability.test.ts: a real engine.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CatalogTemplate } from '../src/domain/catalog';
import { coreWithAdmin, syncCatalog } from './helpers';

const METRICS_TOKEN = 'metrics-token-for-the-runtime-test';
let env: Awaited<ReturnType<typeof coreWithAdmin>>;

const template: CatalogTemplate = {
  id: randomUUID(),
  slug: 'whoami',
  name: 'whoami',
  description: 'echo',
  version: '1.0.0',
  category_slug: 'tools',
  updated_at: new Date().toISOString(),
  image_name: 'localhost/core-test-app',
  image_tag: '1',
  env: [],
  env_schema: [],
};

beforeAll(async () => {
  env = await coreWithAdmin({ metricsToken: METRICS_TOKEN });
  await syncCatalog(env.t, [template]);
  for (const name of ['one', 'two']) {
    const res = await env.t.call('POST', '/api/v1/deployments', {
      token: env.admin,
      body: { name, template_slug: 'whoami', env: {}, secret_refs: [] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});
afterAll(async () => env?.stop());

it('the overview counts deployments by observed state and names the engine (none here)', async () => {
  const res = await env.t.call('GET', '/api/v1/overview', { token: env.admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.engine).toMatchObject({ state: 'none', error: null });
  expect(Date.parse(res.body.engine.since)).not.toBeNaN();
  expect(res.body.deployments).toMatchObject({ total: 2, by_status: { ok: 2, template_missing: 0 } });
  expect(res.body.deployments.by_observed_state).toEqual({
    pending: 0,
    pulling: 0,
    starting: 0,
    running: 0,
    restarting: 0,
    exited: 0,
    failed: 0,
    unschedulable: 0,
    template_missing: 0,
    unknown: 2,
  });
});

it('/readyz stays ready without an engine and says so', async () => {
  const res = await env.t.call('GET', '/readyz');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'ready', engine: { state: 'none', description: 'none' } });
});

it('/metrics carries the engine state and the deployments by observed state', async () => {
  const res = await fetch(`${env.t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toContain('core_engine_state{state="none"} 1');
  expect(text).toContain('core_engine_state{state="up"} 0');
  expect(text).toContain('core_deployments{state="unknown"} 2');
  expect(text).toContain('core_deployments{state="running"} 0');
  // Declared even before the first pass or engine call.
  expect(text).toContain('# TYPE core_reconcile_passes_total counter');
  expect(text).toContain('# TYPE core_reconcile_pass_duration_seconds histogram');
  expect(text).toContain('# TYPE core_engine_errors_total counter');
});
