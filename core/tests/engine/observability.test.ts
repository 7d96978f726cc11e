/**
 * Where Core shows what runs on a real engine (issue 33): the MCP tools (deployment_status for readonly;
 * start/stop/restart for admins, through the domain functions REST uses), the overview (deployments by observed
 * state, the engine up/down) and /metrics (deployments by observed state, reconcile passes and their duration,
 * engine calls and errors) — while the engine runs, while it is stopped, and once it is back.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestCore } from '../helpers';
import { appTemplate, cleanUp, coreOnEngine, publishedUrl, syncCatalog, waitForDeployment } from './coreOnEngine';
import { readEnv, startEngine, waitFor, waitUntilAnswers, type TestEngine } from './fixture';

const METRICS_TOKEN = 'metrics-token-engine-observability';
let engine: TestEngine;
let t: TestCore;
let admin: string;
let instance: string;
let id: string;
const clients: Client[] = [];

async function mcpAs(role: 'admin' | 'readonly') {
  const issued = await t.call('POST', '/api/v1/tokens', { token: admin, body: { name: `mcp-${role}`, role } });
  expect(issued.status).toBe(201);
  const client = new Client({ name: `observability-${role}`, version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${issued.body.token}` } },
    }),
  );
  clients.push(client);
  return async (name: string, args: Record<string, unknown>) => {
    const res = await client.callTool({ name, arguments: args });
    const text = (res.content as { text: string }[])[0]!.text;
    return { isError: !!res.isError, text, body: res.isError ? null : JSON.parse(text) };
  };
}

/** /metrics as name{labels} → value (the registry is the process's: compare before and after). */
async function metrics(): Promise<Map<string, number>> {
  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const values = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const m = /^(\w+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) values.set(m[1]!, Number(m[2]));
  }
  return values;
}

const overview = async () => (await t.call('GET', '/api/v1/overview', { token: admin })).body;
const running = (d: any) => d.observed.state === 'running' && d.observed.ports.length > 0;

beforeAll(async () => {
  // An engine of this file's own: the last test stops it.
  engine = await startEngine();
  ({ t, admin, instance } = await coreOnEngine(engine, {
    config: { metricsToken: METRICS_TOKEN, secret: randomBytes(16).toString('hex') },
  }));
  await syncCatalog(t, [appTemplate('app')]);
  const created = await t.call('POST', '/api/v1/deployments', {
    token: admin,
    body: { name: 'watched', template_slug: 'app', env: { GREETING: 'from-mcp-test' } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  id = created.body.id;
  await waitForDeployment(t, admin, id, running, 'running');
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t?.stop();
  if (engine && instance) {
    await engine.start().catch(() => {});
    await cleanUp(engine, instance);
  }
  await engine?.close();
});

it('MCP: readonly reads the status; an admin stops, starts and restarts what runs on the engine', async () => {
  const reader = await mcpAs('readonly');
  const status = await reader('deployment_status', { id });
  expect(status.body).toMatchObject({ desired_state: 'running', observed: { state: 'running', exit_code: null } });
  const url = publishedUrl(status.body);
  expect((await readEnv(url)).GREETING).toBe('from-mcp-test');
  expect((await reader('stop_deployment', { id })).text).toContain('stop_deployment needs the admin role');
  expect(await waitUntilAnswers(url + '/')).toContain('core-test-app 1');

  const call = await mcpAs('admin');
  const stopped = await call('stop_deployment', { id });
  expect(stopped.body).toMatchObject({ desired_state: 'stopped' });
  await waitForDeployment(t, admin, id, (d) => d.observed.state === 'exited', 'exited');
  await expect(fetch(url + '/', { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
  const restartStopped = await call('restart_deployment', { id });
  expect(restartStopped).toMatchObject({ isError: true });
  expect(restartStopped.text).toContain('is stopped: start it instead');

  expect((await call('start_deployment', { id })).body).toMatchObject({ desired_state: 'running' });
  const back = await waitForDeployment(t, admin, id, running, 'running again');
  await waitUntilAnswers(publishedUrl(back) + '/');

  const restarted = await call('restart_deployment', { id });
  expect(restarted.isError, restarted.text).toBe(false);
  const after = await waitForDeployment(t, admin, id, running, 'running after restart');
  expect((await readEnv(publishedUrl(after))).GREETING).toBe('from-mcp-test');

  const entries = (await t.call('GET', `/api/v1/activity?target_id=${id}`, { token: admin })).body.entries as {
    action: string;
    via: string;
  }[];
  expect(entries.filter((e) => e.via === 'mcp').map((e) => e.action)).toEqual([
    'deployment.restart',
    'deployment.start',
    'deployment.stop',
  ]);
});

it('the overview and /metrics count it running, with passes, their duration and engine calls', async () => {
  const before = await metrics();
  await t.core.reconciler.passNow();
  await t.core.reconciler.passNow();
  const o = await overview();
  expect(o.engine).toMatchObject({ state: 'up', error: null });
  expect(o.engine.description).toContain(engine.dockerHost);
  expect(o.deployments.by_observed_state).toMatchObject({ running: 1, unknown: 0, failed: 0 });

  const m = await metrics();
  expect(m.get('core_engine_state{state="up"}')).toBe(1);
  expect(m.get('core_deployments{state="running"}')).toBe(1);
  const delta = (key: string) => (m.get(key) ?? 0) - (before.get(key) ?? 0);
  expect(delta('core_reconcile_passes_total{result="ok"}')).toBeGreaterThanOrEqual(2);
  expect(delta('core_reconcile_pass_duration_seconds_count')).toBeGreaterThanOrEqual(2);
  expect(delta('core_engine_calls_total{call="list"}')).toBeGreaterThanOrEqual(2);
});

it('passes asked for at once settle: nothing runs back to back afterwards', async () => {
  const r = t.core.reconciler;
  await Promise.all([r.passNow(), r.passNow(), r.passNow()]);
  const before = r.passes;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // The 1 s interval adds one or two; waiters that each also asked for "one more" used to chain passes back to
  // back forever (20 in 2 s).
  expect(r.passes - before).toBeLessThanOrEqual(3);
});

it('with the engine stopped: the overview says down and unknown, /metrics counts the errors; then converges', async () => {
  const call = await mcpAs('admin');
  const before = await metrics();
  await engine.stop();
  await t.core.reconciler.passNow();

  const o = await overview();
  expect(o.engine).toMatchObject({ state: 'down' });
  expect(o.engine.error).toBeTruthy();
  expect(o.deployments.by_observed_state).toMatchObject({ running: 0, unknown: 1 });
  const m = await metrics();
  expect(m.get('core_engine_state{state="down"}')).toBe(1);
  expect(m.get('core_deployments{state="unknown"}')).toBe(1);
  expect(
    (m.get('core_reconcile_passes_total{result="engine_down"}') ?? 0) -
      (before.get('core_reconcile_passes_total{result="engine_down"}') ?? 0),
  ).toBeGreaterThanOrEqual(1);
  expect(
    (m.get('core_engine_errors_total{call="list",kind="engine_down"}') ?? 0) -
      (before.get('core_engine_errors_total{call="list",kind="engine_down"}') ?? 0),
  ).toBeGreaterThanOrEqual(1);

  // The MCP tools answer (status unknown, restart refused naming the engine): /mcp itself stays up.
  const status = await call('deployment_status', { id });
  expect(status.body.observed).toMatchObject({ state: 'unknown' });
  const restart = await call('restart_deployment', { id });
  expect(restart.isError).toBe(true);
  expect(restart.text).toContain(engine.dockerHost);

  await engine.start();
  await waitFor(
    async () => {
      await t.core.reconciler.passNow();
      const now = await overview();
      expect(now.engine.state).toBe('up');
      expect(now.deployments.by_observed_state.running).toBe(1);
    },
    { timeoutMs: 30_000, intervalMs: 500, what: 'the engine back and the deployment running' },
  );
  expect((await metrics()).get('core_engine_state{state="up"}')).toBe(1);
});
