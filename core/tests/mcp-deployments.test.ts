/**
 * MCP tools over deployments (issue 33): deployment_status (desired + observed) for both roles; start, stop and
 * restart for admins only, refused to readonly by the server whatever the client says; each through the same
 * domain function as REST (the same answer, the same activity entry, via mcp). Here without an engine
 * (CORE_RUNTIME=none): observed reads unknown and restart is refused naming why; tests/engine covers a real one.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CatalogTemplate } from '../src/domain/catalog';
import { coreWithAdmin, syncCatalog } from './helpers';

let env: Awaited<ReturnType<typeof coreWithAdmin>>;
let deploymentId: string;
const clients: Client[] = [];

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
  env_schema: [{ name: 'GREETING', required: false, default_value: 'hi', description: '' }],
};

async function mcpAs(role: 'admin' | 'readonly') {
  const issued = await env.t.call('POST', '/api/v1/tokens', { token: env.admin, body: { name: `mcp-${role}`, role } });
  expect(issued.status).toBe(201);
  const client = new Client({ name: `mcp-deployments-${role}`, version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${issued.body.token}` } },
    }),
  );
  clients.push(client);
  return {
    async call(name: string, args: Record<string, unknown>) {
      const res = await client.callTool({ name, arguments: args });
      const text = (res.content as { text: string }[])[0]!.text;
      return { isError: !!res.isError, text, body: res.isError ? null : JSON.parse(text) };
    },
    client,
  };
}

beforeAll(async () => {
  env = await coreWithAdmin();
  await syncCatalog(env.t, [template]);
  const created = await env.t.call('POST', '/api/v1/deployments', {
    token: env.admin,
    body: { name: 'web', template_slug: 'whoami', env: { GREETING: 'hello' }, secret_refs: [] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  deploymentId = created.body.id;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await env?.stop();
});

const rest = async () => (await env.t.call('GET', `/api/v1/deployments/${deploymentId}`, { token: env.admin })).body;

it('deployment_status gives readonly the desired and observed state, as REST does', async () => {
  const reader = await mcpAs('readonly');
  const names = (await reader.client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(
    expect.arrayContaining(['deployment_status', 'start_deployment', 'stop_deployment', 'restart_deployment']),
  );

  const status = await reader.call('deployment_status', { id: deploymentId });
  expect(status.isError).toBe(false);
  expect(status.body).toMatchObject({ id: deploymentId, name: 'web', desired_state: 'running' });
  // No engine here: observed says so in words.
  expect(status.body.observed).toMatchObject({ state: 'unknown', ports: [], restarts: 0 });
  expect(status.body.observed.reason).toMatch(/CORE_RUNTIME=none|no container engine/i);
  expect(status.body).toEqual(await rest());

  const missing = await reader.call('deployment_status', { id: randomUUID() });
  expect(missing).toMatchObject({ isError: true });
  expect(missing.text).toMatch(/deployment/i);
  expect(missing.text).toMatch(/not found/i);
});

it('refuses start, stop and restart to readonly on the server, changing nothing', async () => {
  const reader = await mcpAs('readonly');
  for (const name of ['stop_deployment', 'start_deployment', 'restart_deployment']) {
    const res = await reader.call(name, { id: deploymentId });
    expect(res.isError, name).toBe(true);
    expect(res.text).toContain(`${name} needs the admin role`);
    expect(res.text).toContain('readonly');
  }
  expect((await rest()).desired_state).toBe('running');
  const entries = (await env.t.call('GET', `/api/v1/activity?target_id=${deploymentId}`, { token: env.admin })).body
    .entries as { action: string }[];
  expect(entries.map((e) => e.action)).toEqual(['deployment.create']);
});

it('lets an admin stop and start through the domain functions REST uses (activity via mcp); restart needs the engine', async () => {
  const admin = await mcpAs('admin');
  const stopped = await admin.call('stop_deployment', { id: deploymentId });
  expect(stopped.isError, stopped.text).toBe(false);
  expect(stopped.body).toMatchObject({ id: deploymentId, desired_state: 'stopped' });
  expect(stopped.body).toEqual(await rest());

  const started = await admin.call('start_deployment', { id: deploymentId });
  expect(started.body).toMatchObject({ desired_state: 'running' });
  expect((await rest()).desired_state).toBe('running');

  // Without an engine, restart is the REST 503's words (naming why), not a success.
  const restarted = await admin.call('restart_deployment', { id: deploymentId });
  expect(restarted.isError).toBe(true);
  expect(restarted.text).toMatch(/container engine/i);
  const viaRest = await env.t.call('POST', `/api/v1/deployments/${deploymentId}/restart`, { token: env.admin });
  expect(viaRest.status).toBe(503);
  expect(viaRest.body.message).toBe(restarted.text);

  const entries = (await env.t.call('GET', `/api/v1/activity?target_id=${deploymentId}`, { token: env.admin })).body
    .entries as { action: string; via: string; actor: { label: string }; before: unknown; after: unknown }[];
  expect(entries.slice(0, 2)).toMatchObject([
    {
      action: 'deployment.start',
      via: 'mcp',
      actor: { label: 'token:mcp-admin' },
      after: { desired_state: 'running' },
    },
    {
      action: 'deployment.stop',
      via: 'mcp',
      before: { desired_state: 'running' },
      after: { desired_state: 'stopped' },
    },
  ]);
  expect(entries.some((e) => e.action === 'deployment.restart')).toBe(false);
});
