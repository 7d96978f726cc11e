/**
 * Secret bindings of deployment variables: a variable is a literal or {"secret": name}; every caller sees
 * a binding by name, never the value; credential-named variables take only bindings; a bound secret is
 * not deleted; rows written before bindings existed are moved at start (restart on the same database).
 * Then the readonly sweep: every REST route of the OpenAPI document and every MCP tool, as a readonly
 * machine token and a readonly person, with a known secret value and a known credential literal planted.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployments, hubConnection } from '../src/db/schema';
import { applySync, type CatalogTemplate } from '../src/domain/catalog';
import { isCredentialName } from '@shared/tokens/credential-names';
import { moveCredentialValues } from '../src/domain/credentialLiterals';
import { freshDatabase, localUser, startCore, TEMP_ADMIN, type TestCore } from './helpers';

const SECRET_VALUE = 'planted-secret-value-7f3a9c';
const LEGACY_LITERAL = 'planted-credential-literal-b81e4d';
const MASTER = 'deployment-bindings-test-master-secret';

let t: TestCore;
let admin: string;
let store: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string | null = null;
let firstLogs: string[] = [];

const template = (slug: string): CatalogTemplate => ({
  id: randomUUID(),
  slug,
  name: 'PostgreSQL',
  description: 'database',
  version: '16',
  category_slug: 'databases',
  updated_at: new Date().toISOString(),
  env: [{ name: 'PGPORT', value: '5432' }],
  env_schema: [
    { name: 'ADMIN_PASSWORD', required: true, default_value: '', description: 'superuser password' },
    { name: 'TZ', required: false, default_value: 'UTC', description: 'time zone' },
    { name: 'API_TOKEN', required: false, default_value: '', description: 'token' },
  ],
});

async function start() {
  const config = { temporaryAdmin: TEMP_ADMIN, secret: MASTER, ...(dataDir ? { dataDir } : {}) };
  const core = await startCore(config, store);
  const token = (await core.call('POST', '/api/v1/auth/login', { body: TEMP_ADMIN })).body.access_token as string;
  return { core, token };
}

beforeAll(async () => {
  store = await freshDatabase();
  if (!store.databaseUrl) dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coresec-bindings-'));
  // First start: the catalog, and a deployment row as the old code wrote it (a credential as a literal).
  const first = await start();
  const generation = new Date('2026-01-01T00:00:00Z');
  await first.core.core.db
    .insert(hubConnection)
    .values({ hubUrl: 'https://hub.test', keyPrefix: 'svh_test', instanceId: randomUUID(), connectedAt: generation });
  const pg = template('postgresql');
  await applySync(first.core.core.db, {
    full: true,
    templates: [pg],
    removedIds: [],
    checkedAt: '2026-01-01T00:00:01Z',
    etag: null,
    generation,
  });
  await first.core.core.db.insert(deployments).values({
    name: 'legacy',
    templateId: pg.id,
    templateSlug: pg.slug,
    templateVersion: pg.version,
    env: { ADMIN_PASSWORD: LEGACY_LITERAL, TZ: 'Europe/Berlin' },
    secretRefs: [],
    createdBy: 'old-code',
  });
  firstLogs = first.core.logs;
  await first.core.stop(); // closes its database too
  // Second start on the same database: the start-up migration moves the literal into a secret.
  ({ core: t, token: admin } = await start());
  expect(
    (await t.call('PUT', '/api/v1/secrets/db.password', { token: admin, body: { value: SECRET_VALUE } })).status,
  ).toBe(200);
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await store?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('credential names', () => {
  it.each([
    'ADMIN_PASSWORD',
    'password',
    'DB_SECRET',
    'api-key',
    'apiKey',
    'GITHUB_TOKEN',
    'AWS_CREDENTIALS',
    'SECRET_KEY_BASE',
    'tokens',
  ])('%s is a credential', (n) => {
    expect(isCredentialName(n)).toBe(true);
  });
  it.each(['TZ', 'KEYBOARD_LAYOUT', 'MONKEY', 'PASSWORDLESS_LOGIN', 'TOKENIZER', 'SECRETARY', 'LOG_LEVEL'])(
    '%s is not',
    (n) => {
      expect(isCredentialName(n)).toBe(false);
    },
  );
});

describe('bindings', () => {
  const create = (env: Record<string, unknown>, name = 'db-1') =>
    t.call('POST', '/api/v1/deployments', { token: admin, body: { name, template_slug: 'postgresql', env } });
  const names = async () =>
    (await t.call('GET', '/api/v1/deployments', { token: admin })).body.deployments.map((d: any) => d.name);

  it('refuses a literal for a credential-named variable with 400 saying to bind a secret, and writes nothing', async () => {
    const res = await create({ ADMIN_PASSWORD: 'hunter2hunter2', TZ: 'UTC' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(
      /ADMIN_PASSWORD names a credential: bind a secret instead.*"ADMIN_PASSWORD": \{"secret": "<secret name>"\}/,
    );
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
    const two = await create({ ADMIN_PASSWORD: 'x', API_TOKEN: 'y' });
    expect(two.body.message).toMatch(/ADMIN_PASSWORD, API_TOKEN name credentials/);
    expect(await names()).not.toContain('db-1');
  });

  it('refuses a binding to a secret that does not exist, naming it', async () => {
    const res = await create({ ADMIN_PASSWORD: { secret: 'no.such.secret' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/no secret named no\.such\.secret \(bound by ADMIN_PASSWORD → no\.such\.secret/);
    const bad = await create({ ADMIN_PASSWORD: { secret: 'a b' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/env\.ADMIN_PASSWORD/);
    expect((await create({ ADMIN_PASSWORD: { secret: 'db.password', extra: 1 } })).status).toBe(400);
    expect(await names()).not.toContain('db-1');
  });

  it('stores a binding and shows it by name to every caller; PUT rebinds and unbinds; a bound secret is not deleted', async () => {
    const created = await create({ ADMIN_PASSWORD: { secret: 'db.password' }, TZ: 'UTC' });
    expect(created.status).toBe(201);
    expect(created.body.env).toEqual({ ADMIN_PASSWORD: { secret: 'db.password' }, TZ: 'UTC' });
    const reader = await localUser(t, admin, 'readonly');
    const read = await t.call('GET', `/api/v1/deployments/${created.body.id}`, { token: reader.token });
    expect(read.body.env).toEqual({ ADMIN_PASSWORD: { secret: 'db.password' }, TZ: 'UTC' });
    expect(JSON.stringify(read.body)).not.toContain(SECRET_VALUE);

    const refused = await t.call('DELETE', '/api/v1/secrets/db.password', { token: admin });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/secret db\.password is bound by deployment db-1 \(ADMIN_PASSWORD\)/);

    expect(
      (await t.call('PUT', '/api/v1/secrets/other.password', { token: admin, body: { value: 'other-value' } })).status,
    ).toBe(200);
    const rebound = await t.call('PUT', `/api/v1/deployments/${created.body.id}`, {
      token: admin,
      body: { env: { ADMIN_PASSWORD: { secret: 'other.password' } } },
    });
    expect(rebound.status).toBe(200);
    expect(rebound.body.env).toEqual({ ADMIN_PASSWORD: { secret: 'other.password' } });
    expect(
      (
        await t.call('PUT', `/api/v1/deployments/${created.body.id}`, {
          token: admin,
          body: { env: { ADMIN_PASSWORD: 'plain' } },
        })
      ).status,
    ).toBe(400);
    expect((await t.call('GET', `/api/v1/deployments/${created.body.id}`, { token: admin })).body.env).toEqual({
      ADMIN_PASSWORD: { secret: 'other.password' },
    });
    expect((await t.call('DELETE', `/api/v1/deployments/${created.body.id}`, { token: admin })).status).toBe(204);
    expect((await t.call('DELETE', '/api/v1/secrets/other.password', { token: admin })).status).toBe(204);
  });

  it('moved the old credential literal into a secret deploy.<deployment>.<VAR> and bound it, once', async () => {
    const legacy = (await t.call('GET', '/api/v1/deployments', { token: admin })).body.deployments.find(
      (d: any) => d.name === 'legacy',
    );
    expect(legacy.env).toEqual({ ADMIN_PASSWORD: { secret: 'deploy.legacy.ADMIN_PASSWORD' }, TZ: 'Europe/Berlin' });
    const secret = await t.call('GET', '/api/v1/secrets/deploy.legacy.ADMIN_PASSWORD', { token: admin });
    expect(secret.body.value).toBe(LEGACY_LITERAL);
    expect(t.logs.join('\n')).toMatch(
      /legacy\.ADMIN_PASSWORD -> deploy\.legacy\.ADMIN_PASSWORD.*moved credential literals/,
    );
    expect(firstLogs.join('\n')).not.toMatch(/moved credential literals/);
    expect((await moveCredentialValues(t.core.db, t.core.sealer)).moved).toEqual([]);
  });
});

describe('the readonly sweep', () => {
  it('no REST route, MCP tool, log line or audit record shows a readonly caller the secret value or the old literal', async () => {
    // Plant more: a deployment binding the secret, a secret mounted as a file, an admin reading both values.
    const bound = await t.call('POST', '/api/v1/deployments', {
      token: admin,
      body: {
        name: 'sweep',
        template_slug: 'postgresql',
        env: { ADMIN_PASSWORD: { secret: 'db.password' }, API_TOKEN: { secret: 'deploy.legacy.ADMIN_PASSWORD' } },
        secret_refs: ['db.password'],
      },
    });
    expect(bound.status).toBe(201);
    const reader = await localUser(t, admin, 'readonly');
    const machine = await t.call('POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'sweeper', role: 'readonly' },
    });
    expect(machine.status).toBe(201);
    const logsBefore = t.logs.length;

    const doc = (await t.call('GET', '/api/v1/openapi.json')).body;
    const ids: Record<string, string> = {
      '/api/v1/deployments/{id}': bound.body.id,
      '/api/v1/users/{id}': reader.id,
      '/api/v1/tokens/{id}': machine.body.id,
      '/api/v1/tokens/{id}/audit': machine.body.id,
      '/api/v1/tokens/{id}/reissue': machine.body.id,
    };
    const fill = (p: string) =>
      p
        .replace('{id}', ids[p] ?? randomUUID())
        .replace('{name}', 'db.password')
        .replace('{slug}', 'postgresql');
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => [m.toUpperCase(), p] as const),
    );
    expect(routes.length).toBeGreaterThan(25);
    const bodies: string[] = [];
    const seen: string[] = [];
    for (const [label, token] of [
      ['machine token', machine.body.token as string],
      ['person', reader.token],
    ] as const) {
      for (const [method, p] of routes) {
        // Logging out would end the person's session for the rest of the sweep; it is swept last.
        if (p === '/api/v1/auth/logout') continue;
        const sample =
          method === 'GET' || method === 'DELETE'
            ? undefined
            : { name: 'x', env: {}, value: 'v', template_slug: 'postgresql' };
        const res = await t.call(method, fill(p), { token, body: sample });
        seen.push(`${label} ${method} ${p} ${res.status}`);
        bodies.push(JSON.stringify(res.body), JSON.stringify([...res.headers]));
      }
      // Every MCP tool, with arguments that name the secret and the deployment.
      const client = new Client({ name: 'sweep', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const tools = (await client.listTools()).tools;
      expect(tools.map((x) => x.name)).toEqual(
        expect.arrayContaining(['list_deployments', 'read_secret', 'list_secrets', 'create_deployment']),
      );
      for (const tool of tools) {
        const args: Record<string, unknown> = {
          name: 'db.password',
          slug: 'postgresql',
          template_slug: 'postgresql',
          query: 'postgres',
        };
        const result = await client
          .callTool({ name: tool.name, arguments: args })
          .catch((err: unknown) => ({ error: String(err) }));
        bodies.push(JSON.stringify(result));
        seen.push(`${label} tool ${tool.name}`);
      }
      await client.close();
    }
    // The sweep reached the deployments (else it proves nothing) and read the bindings by name.
    expect(bodies.join('\n')).toContain('"secret":"db.password"');
    expect(bodies.join('\n')).toContain('deploy.legacy.ADMIN_PASSWORD');
    expect(seen).toContain('machine token GET /api/v1/deployments 200');
    expect(seen).toContain('person GET /api/v1/deployments/{id} 200');
    expect(seen).toContain('person GET /api/v1/secrets/{name} 403');

    const haystacks = {
      answers: bodies.join('\n'),
      logs: t.logs.slice(logsBefore).join('\n'),
      'all logs': t.logs.join('\n') + firstLogs.join('\n'),
      'machine-token audit': JSON.stringify(
        (await t.call('GET', `/api/v1/tokens/${machine.body.id}/audit?limit=100`, { token: admin })).body,
      ),
      'mcp tool calls': JSON.stringify((await t.call('GET', '/api/v1/mcp/calls?limit=100', { token: admin })).body),
    };
    for (const [where, text] of Object.entries(haystacks)) {
      expect(text, where).not.toContain(SECRET_VALUE);
      expect(text, where).not.toContain(LEGACY_LITERAL);
    }
    expect(haystacks['mcp tool calls']).toContain('read_secret');
  }, 60_000);
});
