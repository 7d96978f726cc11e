/**
 * The activity log (issue 21): every write by anyone — the temporary admin, a person, a machine token
 * through REST or MCP — is recorded as who, what, target, before → after, in the write's transaction
 * (a refused write records nothing); a secret's value never appears; GET /api/v1/activity filters and pages.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CatalogTemplate } from '../src/domain/catalog';
import { coreWithAdmin, localUser, syncCatalog, TEMP_ADMIN } from './helpers';

let env: Awaited<ReturnType<typeof coreWithAdmin>>;
const SECRET_VALUE = 'hunter2-very-secret-value';

const template: CatalogTemplate = {
  id: randomUUID(),
  slug: 'whoami',
  name: 'whoami',
  description: 'echo',
  version: '1.0.0',
  category_slug: 'tools',
  updated_at: new Date().toISOString(),
  env: [],
  env_schema: [{ name: 'GREETING', required: false, default_value: 'hi', description: '' }],
};

beforeAll(async () => {
  env = await coreWithAdmin();
  await syncCatalog(env.t, [template]);
});
afterAll(async () => env?.stop());

const activity = async (query: string, token = env.admin) => {
  const res = await env.t.call('GET', `/api/v1/activity${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { entries: any[]; pagination: { total: number; page: number; limit: number } };
};

it('records user writes by the temporary admin with before → after, and never the password', async () => {
  const user = await localUser(env.t, env.admin, 'readonly', 'ann@example.test');
  await env.t.call('PUT', `/api/v1/users/${user.id}`, {
    token: env.admin,
    body: { role: 'admin', name: 'Ann', password: 'another long password' },
  });
  const { entries } = await activity(`?target_id=${user.id}`);
  expect(entries.map((e) => e.action)).toEqual(['user.update', 'user.create']);
  const [update, create] = entries;
  expect(create).toMatchObject({
    actor: { kind: 'temporary_admin', id: TEMP_ADMIN.username, label: TEMP_ADMIN.username },
    via: 'api',
    target: { type: 'user', id: user.id, name: 'ann@example.test' },
    before: null,
    after: { email: 'ann@example.test', role: 'readonly', kind: 'local' },
  });
  expect(update.before).toEqual({ role: 'readonly', name: '', password: 'set' });
  expect(update.after).toEqual({ role: 'admin', name: 'Ann', password: 'changed' });
  expect(JSON.stringify(entries)).not.toContain('another long password');
  expect(JSON.stringify(entries)).not.toContain('argon2');
});

it('a refused write records nothing (the record is in the write\u2019s transaction)', async () => {
  const before = (await activity('')).pagination.total;
  const admin = await localUser(env.t, env.admin, 'admin');
  const afterCreate = (await activity('')).pagination.total;
  expect(afterCreate).toBe(before + 1);
  // Duplicate email: refused with 409 and no record.
  const dup = await env.t.call('POST', '/api/v1/users', {
    token: admin.token,
    body: { email: admin.email, password: 'a long enough password', role: 'admin' },
  });
  expect(dup.status).toBe(409);
  const missing = await env.t.call('DELETE', `/api/v1/secrets/nope`, { token: admin.token });
  expect(missing.status).toBe(404);
  expect((await activity('')).pagination.total).toBe(afterCreate);
});

it('records secret writes without their values; "not found" names the secret', async () => {
  const person = await localUser(env.t, env.admin, 'admin', 'sec@example.test');
  expect(
    (
      await env.t.call('PUT', '/api/v1/secrets/db-password', {
        token: person.token,
        body: { value: SECRET_VALUE, description: 'db' },
      })
    ).status,
  ).toBe(200);
  await env.t.call('PUT', '/api/v1/secrets/db-password', { token: person.token, body: { value: SECRET_VALUE + '2' } });
  await env.t.call('PUT', '/api/v1/secrets/db-password', {
    token: person.token,
    body: { value: SECRET_VALUE + '2', description: 'the db' },
  });
  await env.t.call('DELETE', '/api/v1/secrets/db-password', { token: person.token });
  const { entries } = await activity('?target_type=secret&target_id=db-password');
  expect(entries.map((e) => [e.action, e.before, e.after])).toEqual([
    ['secret.delete', { description: 'the db' }, null],
    ['secret.update', { description: 'db', value: 'set' }, { description: 'the db', value: 'unchanged' }],
    ['secret.update', { description: 'db', value: 'set' }, { description: 'db', value: 'changed' }],
    ['secret.create', null, { description: 'db', value: 'set' }],
  ]);
  expect(entries[0].actor).toEqual({ kind: 'local', id: person.id, label: 'sec@example.test' });
  expect(JSON.stringify(await activity('?limit=100'))).not.toContain('hunter2');

  const gone = await env.t.call('GET', '/api/v1/secrets/db-password', { token: person.token });
  expect(gone.status).toBe(404);
  expect(gone.body.message).toContain('"db-password"');
});

it('records machine-token writes through REST and MCP under the token, and MCP list_deployments is an object', async () => {
  const issued = await env.t.call('POST', '/api/v1/tokens', { token: env.admin, body: { name: 'ci', role: 'admin' } });
  expect(issued.status).toBe(201);
  const token = issued.body.token as string;
  const rest = await env.t.call('POST', '/api/v1/deployments', {
    token,
    body: { name: 'via-rest', template_slug: 'whoami', env: {}, secret_refs: [] },
  });
  expect(rest.status, JSON.stringify(rest.body)).toBe(201);
  await env.t.call('PUT', `/api/v1/deployments/${rest.body.id}`, { token, body: { env: { GREETING: 'hello' } } });

  const client = new Client({ name: 'activity-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const created = await client.callTool({
    name: 'create_deployment',
    arguments: { name: 'via-mcp', template_slug: 'whoami' },
  });
  expect(created.isError).toBeFalsy();
  const listed = await client.callTool({ name: 'list_deployments', arguments: {} });
  const body = JSON.parse((listed.content as { text: string }[])[0]!.text);
  expect(body.total).toBe(2);
  expect(body.deployments.map((d: { name: string }) => d.name)).toEqual(['via-mcp', 'via-rest']);
  await client.close();

  const { entries } = await activity(`?actor=${issued.body.id}`);
  expect(entries.map((e) => [e.action, e.via, e.target.name])).toEqual([
    ['deployment.create', 'mcp', 'via-mcp'],
    ['deployment.update', 'api', 'via-rest'],
    ['deployment.create', 'api', 'via-rest'],
  ]);
  expect(entries[1]).toMatchObject({
    before: { env: {} },
    after: { env: { GREETING: 'hello' } },
    actor: { kind: 'machine_token', label: 'token:ci' },
  });
  // The label filters too; the token's own creation is recorded against the temporary admin.
  expect((await activity('?actor=token:ci')).pagination.total).toBe(3);
  const tokenEntries = await activity(`?target_id=${issued.body.id}`);
  expect(tokenEntries.entries).toMatchObject([
    {
      action: 'machine_token.create',
      actor: { kind: 'temporary_admin' },
      after: { name: 'ci', role: 'admin', status: 'active' },
    },
  ]);
  expect(JSON.stringify(tokenEntries)).not.toContain(token);

  expect((await env.t.call('DELETE', `/api/v1/tokens/${issued.body.id}`, { token: env.admin })).status).toBe(204);
  expect((await activity(`?target_id=${issued.body.id}&action=machine_token.revoke`)).entries[0]).toMatchObject({
    before: { status: 'active' },
    after: { status: 'revoked' },
  });
});

it('pages and filters; readonly may read; bad filters are 400s naming the field', async () => {
  const page1 = await activity('?limit=2&page=1');
  const page2 = await activity('?limit=2&page=2');
  expect(page1.entries).toHaveLength(2);
  expect(page2.entries).toHaveLength(2);
  expect(page1.pagination.total).toBeGreaterThan(4);
  expect(new Set([...page1.entries, ...page2.entries].map((e) => e.id)).size).toBe(4);
  expect(Date.parse(page1.entries[1].at)).toBeGreaterThanOrEqual(Date.parse(page2.entries[0].at));

  const future = await activity(`?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
  expect(future.entries).toEqual([]);
  expect((await activity('?action=user.create')).entries.every((e) => e.action === 'user.create')).toBe(true);

  const reader = await localUser(env.t, env.admin, 'readonly');
  expect((await activity('?limit=1', reader.token)).entries).toHaveLength(1);
  expect((await env.t.call('GET', '/api/v1/activity')).status).toBe(401);

  for (const [query, field] of [
    ['?since=yesterday', 'since'],
    ['?target_type=planet', 'target_type'],
    ['?action=DROP TABLE', 'action'],
    ['?limit=1000', 'limit'],
  ] as const) {
    const res = await env.t.call('GET', `/api/v1/activity${query}`, { token: env.admin });
    expect(res.status, query).toBe(400);
    expect(res.body.message).toContain(field);
  }
  const reversed = await env.t.call('GET', '/api/v1/activity?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z', {
    token: env.admin,
  });
  expect(reversed.status).toBe(400);
});
