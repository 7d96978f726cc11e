/**
 * The whole loop with real processes: the MCP SDK's Client → the Hub's /mcp (personal access token) →
 * Core's /mcp (the Hub's assertion) → Core's data, under the person's Core role. Core is connected
 * through its settings API (the key checked with the Hub at once) and has synced the Hub's demo catalog.
 */
import { issueSecret } from '@shared/tokens';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubOk, mintPat, organizationWithKey } from './hub-account';
import {
  call,
  coreStore,
  freePort,
  hubStore,
  startCore,
  startHub,
  TEMP_ADMIN,
  type CoreProc,
  type CoreStore,
  type HubProc,
  type HubStore,
} from './processes';

const ALICE = 'alice@loop.test'; // Core admin
const RITA = 'rita@loop.test'; // Core readonly
const NOBODY = 'nobody@loop.test'; // no Core account
const ROOT = 'root@loop.test'; // Hub superadmin
const PLANTED_LITERAL = 'planted-credential-literal-9d2c';
let hubDb: HubStore, coreDb: CoreStore, hub: HubProc, core: CoreProc;
let key: { id: string; key: string; key_prefix: string };
let coreAdmin: string;

async function mcpClient(pat: string) {
  const client = new Client({ name: 'loop-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${pat}` } },
    }),
  );
  return client;
}

const textOf = (result: any) => (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('');

/** A raw MCP initialize POST (to see status and body of refusals). */
async function rawInitialize(url: string, token: string) {
  return call(url, '/mcp', {
    method: 'POST',
    token,
    headers: { accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    },
  });
}

beforeAll(async () => {
  [hubDb, coreDb] = await Promise.all([hubStore(), coreStore()]);
  hub = await startHub(hubDb, {
    users: [`${ALICE}:user`, `${RITA}:user`, `${NOBODY}:user`, `${ROOT}:superadmin`],
    seed: true,
  });
  const alice = hub.jwts.get(ALICE)!;
  ({ key } = await organizationWithKey(hub.url, alice, 'loop', [
    { email: RITA, role: 'member', jwt: hub.jwts.get(RITA)! },
    { email: NOBODY, role: 'member', jwt: hub.jwts.get(NOBODY)! },
  ]));

  core = await startCore(coreDb, { CORE_HUB_SYNC_INTERVAL: '3600' });
  coreAdmin = (
    await call(core.url, '/api/v1/auth/login', {
      method: 'POST',
      body: { username: TEMP_ADMIN.username, password: TEMP_ADMIN.password },
    })
  ).body.access_token;
  for (const [email, role] of [
    [ALICE, 'admin'],
    [RITA, 'readonly'],
  ]) {
    const res = await call(core.url, '/api/v1/users', {
      method: 'POST',
      token: coreAdmin,
      body: { email, password: 'a long enough password', role },
    });
    expect(res.status).toBe(201);
  }
  expect(
    (
      await call(core.url, '/api/v1/secrets/db-password', {
        method: 'PUT',
        token: coreAdmin,
        body: { value: 's3cret-value' },
      })
    ).status,
  ).toBe(200);
}, 180_000);

afterAll(async () => {
  await core?.stop();
  await hub?.stop();
  await Promise.all([hubDb?.drop(), coreDb?.drop()]);
});

describe('connecting Core to the Hub', () => {
  it('refuses a key the Hub refuses and stores nothing', async () => {
    // A mistyped key: refused by Core itself (the token format's checksum), before the Hub is asked.
    const mistyped = await call(core.url, '/api/v1/settings/hub', {
      method: 'PUT',
      token: coreAdmin,
      body: { hub_url: hub.url, instance_key: key.key.slice(0, -4) + 'AAAA' },
    });
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.message).toMatch(/instance_key: not a Hub instance key: it has a wrong checksum/);
    // A well-formed key the Hub does not know: refused by the Hub.
    const res = await call(core.url, '/api/v1/settings/hub', {
      method: 'PUT',
      token: coreAdmin,
      body: { hub_url: hub.url, instance_key: issueSecret('svh_').secret },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/refused this instance key/);
    expect((await call(core.url, '/api/v1/settings/hub', { token: coreAdmin })).body).toEqual({ configured: false });

    const unreachable = await call(core.url, '/api/v1/settings/hub', {
      method: 'PUT',
      token: coreAdmin,
      body: { hub_url: `http://127.0.0.1:${await freePort()}`, instance_key: key.key },
    });
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.message).toMatch(/unreachable.*nothing was stored/);
    expect((await call(core.url, '/api/v1/settings/hub', { token: coreAdmin })).body).toEqual({ configured: false });
  });

  it('connects, registers its MCP URL, and syncs the catalog the key sees', async () => {
    const res = await call(core.url, '/api/v1/settings/hub', {
      method: 'PUT',
      token: coreAdmin,
      body: { hub_url: hub.url, instance_key: key.key },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      configured: true,
      source: 'settings',
      hub_url: hub.url,
      key_prefix: key.key_prefix,
      instance_id: key.id,
      organization: { slug: 'loop' },
    });
    expect(JSON.stringify(res.body)).not.toContain(key.key);

    const sync = await call(core.url, '/api/v1/catalog/sync', { method: 'POST', token: coreAdmin });
    expect(sync.status).toBe(200);
    const hubList = await hubOk(hub.url, '/catalog/templates?limit=100', key.key);
    const coreList = await call(core.url, '/api/v1/catalog/templates?limit=100', { token: coreAdmin });
    expect(coreList.body.pagination.total).toBe(hubList.pagination.total);
    expect(coreList.body.templates.map((t: any) => t.slug).sort()).toEqual(
      hubList.templates.map((t: any) => t.slug).sort(),
    );
    expect(hubList.pagination.total).toBeGreaterThan(0);

    // Registration: the Hub knows where Core's MCP server is.
    const info = await hubOk(hub.url, '/instance-info', key.key);
    expect(info.instance.reported).toMatchObject({
      mcp_url: `${core.url}/mcp`,
      base_url: core.url,
      version: expect.any(String),
    });
  });
});

describe('the MCP loop', () => {
  it('an admin person searches the synced catalog, reads a secret and creates a deployment', async () => {
    const pat = await mintPat(hub.url, hub.jwts.get(ALICE)!, key.id);
    const client = await mcpClient(pat.token);
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual([
      'create_deployment',
      'deployment_status',
      'get_template',
      'list_deployments',
      'list_secrets',
      'read_secret',
      'restart_deployment',
      'search_templates',
      'set_secret',
      'start_deployment',
      'stop_deployment',
    ]);

    const hubList = await hubOk(hub.url, '/catalog/templates?limit=100', key.key);
    // PostgreSQL: its required POSTGRES_PASSWORD is a credential, so the deployment binds a secret (the sweep below).
    const some = hubList.templates.find((t: any) => t.slug === 'postgresql');
    const found = JSON.parse(
      textOf(await client.callTool({ name: 'search_templates', arguments: { query: some.name } })),
    );
    expect(found.templates.map((t: any) => t.slug)).toContain(some.slug);
    const all = JSON.parse(textOf(await client.callTool({ name: 'search_templates', arguments: { limit: 100 } })));
    expect(all.total).toBe(hubList.pagination.total);

    const secret = await client.callTool({ name: 'read_secret', arguments: { name: 'db-password' } });
    expect(secret.isError).toBeFalsy();
    expect(JSON.parse(textOf(secret)).value).toBe('s3cret-value');

    const template = JSON.parse(
      textOf(await client.callTool({ name: 'get_template', arguments: { slug: some.slug } })),
    );
    // No empty `env` (fixed values) beside the env_schema it would seem to contradict (issue 37).
    expect(template).not.toHaveProperty('env');
    // The assistant creates the secret itself (issue 37): the value goes in and never comes back.
    const setSecret = await client.callTool({
      name: 'set_secret',
      arguments: { name: 'pg-from-mcp', value: 'mcp-set-Secret-9931', description: 'PostgreSQL superuser' },
    });
    expect(setSecret.isError, textOf(setSecret)).toBeFalsy();
    expect(JSON.parse(textOf(setSecret))).toMatchObject({ name: 'pg-from-mcp', description: 'PostgreSQL superuser' });
    expect(textOf(setSecret)).not.toContain('mcp-set-Secret-9931');
    // Credential-named variables (the demo PostgreSQL's POSTGRES_PASSWORD) bind a secret; a literal is refused.
    const credential = (n: string) =>
      /(^|[^A-Za-z0-9])(password|secret|token|key|credential)s?([^A-Za-z0-9]|$)/i.test(n);
    const required = template.env_schema.filter((e: any) => e.required);
    const env = Object.fromEntries(
      required.map((e: any) => [e.name, credential(e.name) ? { secret: 'pg-from-mcp' } : 'x']),
    );
    if (required.some((e: any) => credential(e.name))) {
      const literal = Object.fromEntries(
        required.map((e: any) => [e.name, credential(e.name) ? PLANTED_LITERAL : 'x']),
      );
      const refused = await client.callTool({
        name: 'create_deployment',
        arguments: { name: 'literal', template_slug: some.slug, env: literal },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/bind a secret instead/);
    }
    const created = await client.callTool({
      name: 'create_deployment',
      arguments: { name: 'from-mcp', template_slug: some.slug, env, secret_refs: ['db-password'] },
    });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(JSON.parse(textOf(created))).toMatchObject({
      name: 'from-mcp',
      template_slug: some.slug,
      status: 'ok',
      created_by: ALICE,
      // The bindings as bindings, the file mounts as files (issue 37: "secret_refs": [] read as a lost binding).
      secret_bindings: Object.fromEntries(
        Object.entries(env)
          .filter(([, v]) => typeof v === 'object')
          .map(([k]) => [k, 'pg-from-mcp']),
      ),
      secret_files: ['db-password'],
    });
    const listed = JSON.parse(textOf(await client.callTool({ name: 'list_deployments', arguments: {} })));
    // An object like search_templates' {templates, total} (issue 21), not a bare array.
    expect(listed.deployments.map((d: any) => d.name)).toContain('from-mcp');
    expect(listed.total).toBe(listed.deployments.length);
    await client.close();
  });

  it('a readonly person may search and list secrets, but read_secret and create_deployment are refused naming the role', async () => {
    const pat = await mintPat(hub.url, hub.jwts.get(RITA)!, key.id);
    const client = await mcpClient(pat.token);
    const names = JSON.parse(textOf(await client.callTool({ name: 'list_secrets', arguments: {} })));
    // {secrets, total} like every list tool (issue 37; it was a bare array).
    expect(names.secrets).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'db-password' })]));
    expect(names.total).toBe(names.secrets.length);
    expect(JSON.stringify(names)).not.toContain('s3cret-value');

    const noSet = await client.callTool({
      name: 'set_secret',
      arguments: { name: 'db-password', value: 'overwritten' },
    });
    expect(noSet.isError).toBe(true);
    expect(textOf(noSet)).toMatch(/set_secret needs the admin role.*readonly/);
    const refused = await client.callTool({ name: 'read_secret', arguments: { name: 'db-password' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/needs the admin role.*readonly/);
    expect(textOf(refused)).not.toContain('s3cret-value');
    const noDeploy = await client.callTool({
      name: 'create_deployment',
      arguments: { name: 'nope', template_slug: 'x', env: {}, secret_refs: [] },
    });
    expect(noDeploy.isError).toBe(true);
    expect(textOf(noDeploy)).toMatch(/admin role/);
    await client.close();
  });

  it('the readonly sweep through the Hub: no tool answer, Core log line or tool-call record holds the secret value or the refused literal', async () => {
    const admin = await mcpClient((await mintPat(hub.url, hub.jwts.get(ALICE)!, key.id)).token);
    const some = (await hubOk(hub.url, '/catalog/templates?limit=1', key.key)).templates[0];
    const template = JSON.parse(textOf(await admin.callTool({ name: 'get_template', arguments: { slug: some.slug } })));
    const varName = template.env_schema[0]?.name ?? 'X';
    // Whatever the template, plant a literal attempt under a credential name (refused: undeclared or a credential).
    await admin.callTool({
      name: 'create_deployment',
      arguments: {
        name: 'planted',
        template_slug: some.slug,
        env: { DB_PASSWORD: PLANTED_LITERAL, [varName]: { secret: 'db-password' } },
      },
    });
    await admin.close();

    const pat = await mintPat(hub.url, hub.jwts.get(RITA)!, key.id);
    const client = await mcpClient(pat.token);
    const answers: string[] = [];
    for (const tool of (await client.listTools()).tools) {
      const args = {
        name: 'db-password',
        slug: some.slug,
        template_slug: some.slug,
        query: some.name,
        env: { DB_PASSWORD: PLANTED_LITERAL },
      };
      answers.push(
        JSON.stringify(
          await client.callTool({ name: tool.name, arguments: args }).catch((err: unknown) => String(err)),
        ),
      );
    }
    await client.close();
    const deployments = answers.find((a) => a.includes('from-mcp'));
    expect(deployments, 'list_deployments reached the deployments').toBeDefined();
    expect(deployments).toMatch(/\\"secret\\": \\"pg-from-mcp\\"/);
    const calls = JSON.stringify((await call(core.url, '/api/v1/mcp/calls?limit=100', { token: coreAdmin })).body);
    for (const [where, text] of Object.entries({
      answers: answers.join('\n'),
      'Core log': core.output.join('\n'),
      'tool-call records': calls,
    })) {
      expect(text, where).not.toContain('s3cret-value');
      expect(text, where).not.toContain('mcp-set-Secret-9931'); // set through set_secret
      expect(text, where).not.toContain(PLANTED_LITERAL);
    }
  });

  it('a person with no Core account is refused with a message that says what to do', async () => {
    const pat = await mintPat(hub.url, hub.jwts.get(NOBODY)!, key.id);
    const res = await rawInitialize(hub.url, pat.token);
    expect(res.status).toBe(403); // passed through by the Hub
    expect(res.body.message).toMatch(/nobody@loop\.test has no account on this Core instance.*Ask a Core admin/);
    await expect(mcpClient(pat.token)).rejects.toThrow(/no account on this Core instance/);
  });

  it('revoking the token at the Hub ends it on the next call', async () => {
    const alice = hub.jwts.get(ALICE)!;
    const pat = await mintPat(hub.url, alice, key.id);
    const client = await mcpClient(pat.token);
    expect((await client.callTool({ name: 'list_deployments', arguments: {} })).isError).toBeFalsy();
    await hubOk(hub.url, `/account/tokens?id=${pat.id}`, alice, 'DELETE');
    await expect(client.callTool({ name: 'list_deployments', arguments: {} })).rejects.toThrow();
    await client.close().catch(() => {});
  });

  it('records every tool call with who made it and the outcome', async () => {
    const res = await call(core.url, '/api/v1/mcp/calls?limit=100', { token: coreAdmin });
    expect(res.status).toBe(200);
    const calls = res.body.calls as Array<{ actor: string; tool: string; outcome: string; via: string }>;
    expect(calls).toContainEqual(
      expect.objectContaining({ actor: RITA, tool: 'read_secret', outcome: 'refused', via: 'hub' }),
    );
    expect(calls).toContainEqual(
      expect.objectContaining({ actor: ALICE, tool: 'read_secret', outcome: 'ok', via: 'hub' }),
    );
  });
});

describe('deployments (desired state, validated against the synced template)', () => {
  let templateId: string;
  let readonlyToken: string;
  const body = (over: Record<string, unknown> = {}) => ({
    name: 'web-1',
    template_slug: 'loop-app',
    env: { MODE: 'prod' },
    secret_refs: ['db-password'],
    ...over,
  });

  beforeAll(async () => {
    const root = hub.jwts.get(ROOT)!;
    const { categories } = await hubOk(hub.url, '/catalog/categories', key.key);
    const { template } = await hubOk(hub.url, '/admin/templates', root, 'POST', {
      name: 'Loop app',
      slug: 'loop-app',
      category_id: categories[0].id,
      image_name: 'example/loop',
      is_public: true,
      env: [{ name: 'PORT', value: '8080' }],
      env_schema: [
        { name: 'MODE', required: true, default_value: '', description: 'run mode' },
        { name: 'LOG_LEVEL', required: false, default_value: 'info', description: 'log level' },
      ],
    });
    templateId = template.id;
    expect((await call(core.url, '/api/v1/catalog/sync', { method: 'POST', token: coreAdmin })).status).toBe(200);
    readonlyToken = (
      await call(core.url, '/api/v1/auth/login', {
        method: 'POST',
        body: { username: RITA, password: 'a long enough password' },
      })
    ).body.access_token;
  });

  it.each([
    ['an unknown template', { template_slug: 'no-such-template' }, /template_slug: no template "no-such-template"/],
    ['a missing required variable', { env: {} }, /env: template loop-app requires MODE/],
    [
      'an undeclared variable',
      { env: { MODE: 'x', DEBUG: '1' } },
      /env: DEBUG is not declared by template loop-app \(declared: MODE, LOG_LEVEL, PORT\)/,
    ],
    ['a value that is not a string', { env: { MODE: 3 } }, /env\.MODE/],
    ['a secret that does not exist', { secret_refs: ['nope'] }, /secret_refs: no secret named nope/],
    ['a bad name', { name: 'Web 1' }, /name: /],
    ['an unknown field', { replicas: 3 }, /unknown field: replicas/],
  ])('refuses %s with 400 naming the problem, and writes nothing', async (_what, over, message) => {
    const res = await call(core.url, '/api/v1/deployments', { method: 'POST', token: coreAdmin, body: body(over) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.message).toMatch(message);
    expect(
      (await call(core.url, '/api/v1/deployments', { token: coreAdmin })).body.deployments.map((d: any) => d.name),
    ).not.toContain('web-1');
  });

  it('creates, reads, updates and deletes for admins; readonly reads only; a template leaving the catalog shows as template_missing', async () => {
    expect(
      (await call(core.url, '/api/v1/deployments', { method: 'POST', token: readonlyToken, body: body() })).status,
    ).toBe(403);
    const created = await call(core.url, '/api/v1/deployments', { method: 'POST', token: coreAdmin, body: body() });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'web-1',
      template_slug: 'loop-app',
      template_id: templateId,
      env: { MODE: 'prod' },
      secret_refs: ['db-password'],
      status: 'ok',
    });
    expect(
      (await call(core.url, '/api/v1/deployments', { method: 'POST', token: coreAdmin, body: body() })).status,
    ).toBe(409);

    const id = created.body.id;
    expect((await call(core.url, `/api/v1/deployments/${id}`, { token: readonlyToken })).body.name).toBe('web-1');
    expect(
      (
        await call(core.url, `/api/v1/deployments/${id}`, {
          method: 'PUT',
          token: readonlyToken,
          body: { env: { MODE: 'dev' } },
        })
      ).status,
    ).toBe(403);
    const updated = await call(core.url, `/api/v1/deployments/${id}`, {
      method: 'PUT',
      token: coreAdmin,
      body: { env: { MODE: 'dev', LOG_LEVEL: 'debug' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.env).toEqual({ MODE: 'dev', LOG_LEVEL: 'debug' });
    expect(
      (await call(core.url, `/api/v1/deployments/${id}`, { method: 'PUT', token: coreAdmin, body: { env: {} } }))
        .status,
    ).toBe(400);

    await hubOk(hub.url, '/admin/templates', hub.jwts.get(ROOT)!, 'DELETE', { id: templateId });
    expect((await call(core.url, '/api/v1/catalog/sync', { method: 'POST', token: coreAdmin })).body.removed).toBe(1);
    expect((await call(core.url, `/api/v1/deployments/${id}`, { token: coreAdmin })).body.status).toBe(
      'template_missing',
    );
    expect((await call(core.url, '/api/v1/catalog/templates/loop-app', { token: coreAdmin })).status).toBe(404);

    expect((await call(core.url, `/api/v1/deployments/${id}`, { method: 'DELETE', token: readonlyToken })).status).toBe(
      403,
    );
    expect((await call(core.url, `/api/v1/deployments/${id}`, { method: 'DELETE', token: coreAdmin })).status).toBe(
      204,
    );
    expect((await call(core.url, `/api/v1/deployments/${id}`, { token: coreAdmin })).status).toBe(404);
  });

  it('hub settings: readonly reads them but may not change them or sync', async () => {
    const read = await call(core.url, '/api/v1/settings/hub', { token: readonlyToken });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ configured: true, key_prefix: key.key_prefix });
    expect(JSON.stringify(read.body)).not.toContain(key.key);
    expect(
      (
        await call(core.url, '/api/v1/settings/hub', {
          method: 'PUT',
          token: readonlyToken,
          body: { hub_url: hub.url, instance_key: key.key },
        })
      ).status,
    ).toBe(403);
    expect((await call(core.url, '/api/v1/settings/hub', { method: 'DELETE', token: readonlyToken })).status).toBe(403);
    expect((await call(core.url, '/api/v1/catalog/sync', { method: 'POST', token: readonlyToken })).status).toBe(403);
    expect((await call(core.url, '/api/v1/catalog/templates?limit=101', { token: readonlyToken })).status).toBe(400);
  });
});

describe('what Core refuses at its own /mcp', () => {
  async function assertion(
    audience: string,
    ttl: number,
    email = ALICE,
    destination: string | null = `${core.url}/mcp`,
  ) {
    return (
      await call(hub.url, '/__fixture/assertion', {
        method: 'POST',
        body: { audience, ttl_seconds: ttl, email, ...(destination === null ? {} : { destination }) },
      })
    ).body.assertion as string;
  }

  it('accepts the Hub’s assertion for this instance (the control)', async () => {
    const res = await rawInitialize(core.url, await assertion(key.id, 60));
    expect(res.status).toBe(200);
  });

  it('refuses a replayed assertion (the same jti twice) within its lifetime', async () => {
    const once = await assertion(key.id, 60);
    expect((await rawInitialize(core.url, once)).status).toBe(200);
    const replay = await rawInitialize(core.url, once);
    expect(replay.status).toBe(401);
    expect(replay.body.message).toMatch(/already used \(a replay\)/);
  });

  it('refuses an assertion bound to another destination or to none, and accepts its own URL spelled with a trailing slash', async () => {
    const elsewhere = await rawInitialize(core.url, await assertion(key.id, 60, ALICE, 'http://127.0.0.1:9/mcp'));
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.message).toMatch(/issued for another destination, not this instance's MCP endpoint/);
    const none = await rawInitialize(core.url, await assertion(key.id, 60, ALICE, null));
    expect(none.status).toBe(401);
    expect(none.body.message).toMatch(/names no destination/);
    const slash = await rawInitialize(core.url, await assertion(key.id, 60, ALICE, `${core.url}/mcp/`));
    expect(slash.status).toBe(200);
  });

  it('refuses an assertion for another audience, an expired one, and one signed by another Hub’s key', async () => {
    const wrongAudience = await rawInitialize(core.url, await assertion('8f1e0c4e-0000-4000-8000-000000000001', 60));
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.body.message).toMatch(/assertion was refused/);

    const expired = await rawInitialize(core.url, await assertion(key.id, -120));
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);

    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const kid = (await exportJWK(publicKey)).x!.slice(0, 8);
    const forged = await new SignJWT({
      email: ALICE,
      name: 'Alice',
      token_id: 'x',
      instance_id: key.id,
      destination: `${core.url}/mcp`,
    })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(hub.url)
      .setAudience(key.id)
      .setSubject('someone')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(privateKey);
    const other = await rawInitialize(core.url, forged);
    expect(other.status).toBe(401);
    expect(other.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('accepts a Core machine token and audits the request', async () => {
    const created = await call(core.url, '/api/v1/tokens', {
      method: 'POST',
      token: coreAdmin,
      body: { name: 'mcp-bot', role: 'readonly' },
    });
    const res = await rawInitialize(core.url, created.body.token);
    expect(res.status).toBe(200);
    const audit = await call(core.url, `/api/v1/tokens/${created.body.id}/audit`, { token: coreAdmin });
    expect(audit.body.records).toContainEqual(expect.objectContaining({ method: 'POST', path: '/mcp', status: 200 }));
  });
});
