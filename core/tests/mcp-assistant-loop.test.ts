/**
 * Issue 37: an assistant could not finish a deployment on its own. Through MCP alone, on a Core with an empty
 * secret store: get_template (no empty `env` beside env_schema), set_secret (admin; the value goes in and never
 * comes back; readonly refused), list_secrets ({secrets, total} like the other list tools), create_deployment
 * binding the secret (its answer shows the binding as a binding), list_deployments.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CatalogTemplate } from '../src/domain/catalog';
import { coreWithAdmin, syncCatalog } from './helpers';

let env: Awaited<ReturnType<typeof coreWithAdmin>>;
const VALUE = 'pg-superuser-Secret-4711';

const postgresql: CatalogTemplate = {
  id: randomUUID(),
  slug: 'postgresql',
  name: 'PostgreSQL',
  description: 'relational database',
  version: '17.2',
  category_slug: 'databases',
  updated_at: new Date().toISOString(),
  image_name: 'postgres',
  image_tag: '17.2',
  env: [],
  env_schema: [
    { name: 'POSTGRES_PASSWORD', required: true, default_value: '', description: 'Superuser password' },
    { name: 'POSTGRES_DB', required: false, default_value: '', description: 'Database to create' },
  ],
};

async function mcp(role: 'admin' | 'readonly') {
  const issued = await env.t.call('POST', '/api/v1/tokens', {
    token: env.admin,
    body: { name: `assistant-${role}`, role },
  });
  expect(issued.status).toBe(201);
  const client = new Client({ name: `assistant-${role}`, version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${issued.body.token}` } },
    }),
  );
  return async (name: string, args: Record<string, unknown> = {}) => {
    const res = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    const text = res.content[0]!.text;
    return { isError: res.isError === true, text, body: res.isError ? null : JSON.parse(text) };
  };
}

beforeAll(async () => {
  env = await coreWithAdmin();
  await syncCatalog(env.t, [postgresql]);
});
afterAll(async () => env?.stop());

it('deploys PostgreSQL through MCP alone: set the secret, bind it, list the deployment', async () => {
  const admin = await mcp('admin');
  const reader = await mcp('readonly');

  const template = await admin('get_template', { slug: 'postgresql' });
  expect(template.body.env_schema.map((e: { name: string }) => e.name)).toEqual(['POSTGRES_PASSWORD', 'POSTGRES_DB']);
  expect(template.body).not.toHaveProperty('env');

  expect((await admin('list_secrets')).body).toEqual({ secrets: [], total: 0 });

  // A readonly caller is refused, naming the role; nothing is stored.
  const refused = await reader('set_secret', { name: 'pg-password', value: VALUE });
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/set_secret needs the admin role.*readonly/);
  expect(refused.text).not.toContain(VALUE);
  expect((await reader('list_secrets')).body).toEqual({ secrets: [], total: 0 });

  const badName = await admin('set_secret', { name: 'pg password', value: VALUE });
  expect(badName.isError).toBe(true);
  expect(badName.text).toContain('name: must be 1–128 characters');

  const set = await admin('set_secret', { name: 'pg-password', value: VALUE, description: 'PostgreSQL superuser' });
  expect(set.isError, set.text).toBe(false);
  expect(set.body).toMatchObject({ name: 'pg-password', description: 'PostgreSQL superuser' });
  expect(set.text).not.toContain(VALUE);
  const listed = (await reader('list_secrets')).body;
  expect(listed).toMatchObject({ total: 1, secrets: [{ name: 'pg-password', description: 'PostgreSQL superuser' }] });
  expect(JSON.stringify(listed)).not.toContain(VALUE);
  // Stored as given (sealed at rest): what a deployment receives.
  const stored = await env.t.call('GET', '/api/v1/secrets/pg-password', { token: env.admin });
  expect(stored.body.value).toBe(VALUE);

  const created = await admin('create_deployment', {
    name: 'pg',
    template_slug: 'postgresql',
    env: { POSTGRES_PASSWORD: { secret: 'pg-password' }, POSTGRES_DB: 'app' },
  });
  expect(created.isError, created.text).toBe(false);
  expect(created.body).toMatchObject({
    name: 'pg',
    template_slug: 'postgresql',
    env: { POSTGRES_DB: 'app' },
    secret_bindings: { POSTGRES_PASSWORD: 'pg-password' },
    secret_files: [],
  });
  expect(created.body).not.toHaveProperty('secret_refs');

  // The other deployment tools answer the REST shape, where env shows the binding as {"secret": "<name>"}.
  const deployments = (await reader('list_deployments')).body;
  expect(deployments.total).toBe(1);
  expect(deployments.deployments[0]).toMatchObject({
    id: created.body.id,
    name: 'pg',
    env: { POSTGRES_DB: 'app', POSTGRES_PASSWORD: { secret: 'pg-password' } },
  });

  // The value is in no answer, activity entry, tool-call record or log line.
  const activity = await env.t.call('GET', '/api/v1/activity?limit=100', { token: env.admin });
  expect(activity.body.entries.map((e: { action: string; via: string }) => [e.action, e.via])).toContainEqual([
    'secret.create',
    'mcp',
  ]);
  const calls = await env.t.call('GET', '/api/v1/mcp/calls?limit=100', { token: env.admin });
  expect(JSON.stringify(calls.body)).toContain('set_secret');
  for (const [where, text] of [
    ['activity', JSON.stringify(activity.body)],
    ['tool calls', JSON.stringify(calls.body)],
    ['logs', env.t.logs.join('\n')],
  ])
    expect(text, where).not.toContain(VALUE);
});
