/**
 * Two Hub processes on one PostgreSQL database: a write through one is visible through the other
 * within a second (LISTEN/NOTIFY invalidation of the in-process caches). Always runs on PostgreSQL
 * (the embedded database serves one process only): PG_SERVER_URL or the local server.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';

const serverUrl = process.env.PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `hub_mp_${randomBytes(4).toString('hex')}`;
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const env = { ...process.env, DATABASE_URL: dbUrl, HUB_URL: 'http://hub.test', HUB_SECRET: 'multiprocess-test-secret' };
const tsx = path.join(process.cwd(), 'node_modules/.bin/tsx');
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
const children: ChildProcess[] = [];
let a: string, b: string, adminJwt: string;

function cli(...args: string[]) {
  const r = spawnSync(tsx, ['server/cli.ts', ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

function startHub(): Promise<string> {
  const child = spawn(tsx, ['tests/fixtures/hub-process.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      const m = /LISTENING (\S+)/.exec(String(d));
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`hub process exited ${code}`)));
  });
}

async function call(base: string, p: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${base}/api/v1${p}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function within(ms: number, check: () => Promise<boolean>) {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 25));
  }
  return Infinity;
}

beforeAll(async () => {
  await admin.unsafe(`create database ${dbName}`);
  cli('migrate');
  cli('user', 'create', '--email', 'mp-admin@example.test', '--role', 'admin');
  adminJwt = cli('token', '--email', 'mp-admin@example.test');
  [a, b] = await Promise.all([startHub(), startHub()]);
}, 120_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
});

it('a catalog write through one process reaches the other within a second', async () => {
  const cat = await call(a, '/admin/categories', { method: 'POST', token: adminJwt, body: { name: 'MP', slug: 'mp' } });
  expect(cat.status).toBe(200);
  // Process B caches its (empty) answer.
  expect((await call(b, '/catalog/templates?category=mp')).body.templates).toEqual([]);
  expect((await call(b, '/catalog/templates?category=mp')).body.templates).toEqual([]);
  const created = await call(a, '/admin/templates', {
    method: 'POST',
    token: adminJwt,
    body: { name: 'MP one', slug: 'mp-one', category_id: cat.body.category.id, image_name: 'x/mp' },
  });
  expect(created.status).toBe(200);
  const took = await within(
    1000,
    async () => (await call(b, '/catalog/templates?category=mp')).body.templates.length === 1,
  );
  expect(took).toBeLessThan(1000);
});

it('a key revoked through one process is refused by the other within a second', async () => {
  const owner = 'mp-owner@example.test';
  cli('user', 'create', '--email', owner);
  const jwt = cli('token', '--email', owner);
  expect(
    (await call(a, '/account/organizations', { method: 'POST', token: jwt, body: { name: 'MP Org', slug: 'mp-org' } }))
      .status,
  ).toBe(200);
  const key = await call(a, '/account/api-keys', { method: 'POST', token: jwt, body: { name: 'mp' } });
  const secret = key.body.apiKey.key as string;
  expect((await call(b, '/catalog/templates', { token: secret })).status).toBe(200); // cached in B
  expect((await call(a, `/account/api-keys?id=${key.body.apiKey.id}`, { method: 'DELETE', token: jwt })).status).toBe(
    200,
  );
  const took = await within(1000, async () => (await call(b, '/catalog/templates', { token: secret })).status === 401);
  expect(took).toBeLessThan(1000);
});

it('an API token (hub token) revoked through one process is refused by the other on its very next call', async () => {
  const user = 'mp-script@example.test';
  cli('user', 'create', '--email', user);
  const session = cli('token', '--email', user, '--label', 'mp session');
  const script = cli('token', '--email', user, '--label', 'mp script');
  expect((await call(b, '/account/profile', { token: script })).status).toBe(200); // used through B
  const listed = await call(a, '/account/api-tokens', { token: session });
  const row = listed.body.tokens.find((t: { label: string }) => t.label === 'mp script');
  expect(row).toMatchObject({ source: 'cli', status: 'active' });
  expect(
    (await call(a, '/account/api-tokens', { method: 'DELETE', token: session, body: { id: row.id } })).status,
  ).toBe(200);
  // No waiting: the resolver reads the token's row with its user on every call, in every process.
  expect((await call(b, '/account/profile', { token: script })).status).toBe(401);
  expect((await call(a, '/account/profile', { token: script })).status).toBe(401);
  expect((await call(b, '/account/profile', { token: session })).status).toBe(200);
});

it('a PAT minted with an API token stops in the other process on its very next call when that token is revoked', async () => {
  const user = 'mp-derived@example.test';
  cli('user', 'create', '--email', user);
  const session = cli('token', '--email', user, '--label', 'mp derived session');
  const script = cli('token', '--email', user, '--label', 'mp derived script');
  expect(
    (await call(a, '/account/organizations', { method: 'POST', token: session, body: { name: 'MP D', slug: 'mp-d' } }))
      .status,
  ).toBe(200);
  const key = await call(a, '/account/api-keys', { method: 'POST', token: session, body: { name: 'mp-d' } });
  const minted = await call(a, '/account/tokens', {
    method: 'POST',
    token: script,
    body: { name: 'derived', instance_id: key.body.apiKey.id },
  });
  expect(minted.status).toBe(200);
  const pat = minted.body.token.token as string;
  // B resolves the PAT and caches its look-up (the instance reported no MCP URL yet: a 502 after the look-up).
  const mcp = async (base: string) => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${pat}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    return { status: res.status, reason: ((await res.json().catch(() => null)) as { reason?: string } | null)?.reason };
  };
  const before = await mcp(b);
  expect(before.status).not.toBe(401);
  expect((await mcp(b)).status).toBe(before.status);

  const row = (await call(a, '/account/api-tokens', { token: session })).body.tokens.find(
    (t: { label: string }) => t.label === 'mp derived script',
  );
  expect(
    (await call(a, '/account/api-tokens', { method: 'DELETE', token: session, body: { id: row.id } })).status,
  ).toBe(200);
  const took = await within(1000, async () => (await mcp(b)).status === 401);
  expect(took).toBeLessThan(1000);
  expect(await mcp(b)).toEqual({ status: 401, reason: 'api_token_ended' });
});
