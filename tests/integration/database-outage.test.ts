/**
 * PostgreSQL goes away under light load, through a TCP proxy this test controls between the Hub process
 * (the production edge, tests/fixtures/edge-process.ts) and the server: every answer is 2xx or 503 with
 * Retry-After, within about a second (no hang, no 500); cached catalog answers keep being served; /readyz
 * says 503; once the database is back the same process recovers without a restart; every accepted write
 * is there with its audit record, and nothing is half-applied. /mcp answers an outage the same way (503
 * SERVICE_UNAVAILABLE with Retry-After, through the one error mapper), not 500.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issueSecret } from '@shared/tokens';

const serverUrl = new URL(process.env.PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const dbName = `hub_outage_${randomBytes(4).toString('hex')}`;
const directUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const tsx = path.join(process.cwd(), 'node_modules/.bin/tsx');
const run = promisify(execFile);
const admin = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });

/** A TCP proxy to PostgreSQL: cut() drops every connection and refuses new ones; restore() accepts again. */
class DatabaseProxy {
  private listener?: net.Server;
  private sockets = new Set<net.Socket>();
  port = 0;
  async start() {
    this.listener = net.createServer((client) => {
      const upstream = net.connect(Number(serverUrl.port || 5432), serverUrl.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.listener!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.listener.address() as AddressInfo).port;
  }
  async cut() {
    const closed = new Promise((resolve) => this.listener!.close(resolve));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

const proxy = new DatabaseProxy();
let hub: ChildProcess;
let base: string;
let adminJwt: string;

function env() {
  const viaProxy = Object.assign(new URL(directUrl), { hostname: '127.0.0.1', port: String(proxy.port) }).toString();
  return {
    ...process.env,
    DATABASE_URL: viaProxy,
    HUB_URL: 'http://hub.test',
    HUB_SECRET: 'outage-test-secret',
    HUB_LOG_LEVEL: 'warn',
    // The /mcp caller below sends a new (unknown) token each time: each one is a database look-up, not a refusal by budget.
    HUB_RATE_LIMIT_FAILED_AUTH: '1000000',
  };
}

/** The CLI, run without blocking this process (the proxy lives here). */
async function cli(...args: string[]) {
  const { stdout } = await run(tsx, ['server/cli.ts', ...args], { env: env() });
  return stdout.trim();
}

interface Answer {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: any;
}

async function call(
  p: string,
  init: { method?: string; token?: string; body?: unknown; accept?: string } = {},
): Promise<Answer> {
  const started = Date.now();
  try {
    const res = await fetch(`${base}${p}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(init.accept ? { accept: init.accept } : {}),
      },
      body: init.body ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
    const body = await res.json().catch(() => null);
    return { status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after'), body };
  } catch (err) {
    // No answer (a hang or a reset connection): status 0, reported by the assertions below.
    return { status: 0, ms: Date.now() - started, retryAfter: null, body: String(err) };
  }
}

beforeAll(async () => {
  await admin.unsafe(`create database ${dbName}`);
  await proxy.start();
  await cli('migrate');
  await cli('user', 'create', '--email', 'outage-admin@example.test', '--role', 'admin');
  adminJwt = await cli('token', '--email', 'outage-admin@example.test');
  hub = spawn(process.execPath, ['--import', 'tsx', 'tests/fixtures/edge-process.ts'], {
    env: env(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  base = await new Promise((resolve, reject) => {
    hub.stdout!.on('data', (d) => {
      const m = /LISTENING (\S+)/.exec(String(d));
      if (m) resolve(m[1]!);
    });
    hub.once('exit', (code) => reject(new Error(`hub process exited ${code}`)));
  });
}, 120_000);

afterAll(async () => {
  hub?.kill('SIGTERM');
  if (hub && hub.exitCode === null) await new Promise((r) => hub.once('exit', r));
  await proxy.cut().catch(() => {});
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
});

it('answers 503 with Retry-After within a second while PostgreSQL is cut, serves cached reads, and recovers without a restart', async () => {
  expect((await call('/readyz')).status).toBe(200);
  const cat = await call('/api/v1/admin/categories', {
    method: 'POST',
    token: adminJwt,
    body: { name: 'Outage', slug: 'outage' },
  });
  expect(cat.status).toBe(200);
  // Warm the response cache and the credential cache.
  expect((await call('/api/v1/catalog/categories')).status).toBe(200);
  expect((await call('/api/v1/catalog/categories', { token: adminJwt })).status).toBe(200);

  const answers: { phase: string; kind: 'write' | 'cached' | 'mcp'; slug?: string; a: Answer }[] = [];
  let phase = 'before';
  let n = 0;
  let running = true;
  // Light load: two writers and one reader of a cached answer, back to back.
  const writer = async () => {
    while (running) {
      if (phase === 'quiet') {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const slug = `outage-${++n}`;
      const at = phase;
      const a = await call('/api/v1/admin/categories', {
        method: 'POST',
        token: adminJwt,
        body: { name: `Outage ${n}`, slug },
      });
      answers.push({ phase: at, kind: 'write', slug, a });
      if (a.status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
  };
  const reader = async () => {
    while (running) {
      const at = phase;
      answers.push({ phase: at, kind: 'cached', a: await call('/api/v1/catalog/categories') });
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  // An MCP client whose token the Hub has not seen: its check is a database read (401 unknown, or 503 in the cut).
  const mcpCaller = async () => {
    while (running) {
      const at = phase;
      const body = { jsonrpc: '2.0', id: 1, method: 'ping' };
      const a = await call('/mcp', {
        method: 'POST',
        token: issueSecret('svp_').secret,
        body,
        accept: 'application/json, text/event-stream',
      });
      answers.push({ phase: at, kind: 'mcp', a });
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const load = Promise.all([writer(), writer(), reader(), mcpCaller()]);

  await new Promise((r) => setTimeout(r, 1_000));
  // Writes invalidate the catalog cache: a quiet moment lets the reader cache its answer again before the cut.
  phase = 'quiet';
  await new Promise((r) => setTimeout(r, 500));
  phase = 'cut';
  await proxy.cut();
  await new Promise((r) => setTimeout(r, 3_000));
  const readyDuringCut = await call('/readyz');
  phase = 'restored';
  await proxy.start();
  // Recovery of the same process: a write succeeds again.
  const started = Date.now();
  while (
    !answers.some((x) => x.phase === 'restored' && x.kind === 'write' && x.a.status === 200) &&
    Date.now() - started < 15_000
  ) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 500));
  running = false;
  await load;

  expect(readyDuringCut.status).toBe(503);
  expect((await call('/readyz')).status).toBe(200);
  const unexpected = answers.filter((x) => x.a.status !== 503 && x.a.status !== (x.kind === 'mcp' ? 401 : 200));
  expect(unexpected.map((x) => [x.kind, x.phase, x.a.status, x.a.ms, x.a.body])).toEqual([]);
  const refused = answers.filter((x) => x.a.status === 503);
  expect(refused.length).toBeGreaterThan(0);
  expect(refused.filter((x) => x.kind === 'mcp').length).toBeGreaterThan(0);
  // Before and after the cut, the same /mcp call is an ordinary refusal of the unknown token.
  expect(answers.filter((x) => x.kind === 'mcp' && x.phase === 'before').map((x) => x.a.status)).toContain(401);
  for (const x of refused) {
    expect(x.a.retryAfter).toMatch(/^\d+$/);
    expect(x.a.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
  }
  // Within about a second, never a hang (the connect timeout is 1 s).
  const slowest = Math.max(...answers.filter((x) => x.phase === 'cut').map((x) => x.a.ms));
  expect(slowest).toBeLessThan(2_500);
  // Cached catalog answers kept being served during the cut.
  const cachedDuringCut = answers.filter((x) => x.phase === 'cut' && x.kind === 'cached');
  expect(cachedDuringCut.length).toBeGreaterThan(10);
  expect(cachedDuringCut.map((x) => x.a.status).filter((status) => status !== 200)).toEqual([]);
  expect(answers.some((x) => x.phase === 'restored' && x.kind === 'write' && x.a.status === 200)).toBe(true);

  // No accepted write lost; nothing half-applied (each category has its audit record, in the same transaction).
  const db = postgres(directUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await db<{ slug: string; id: string }[]>`select slug, id from categories where slug like 'outage-%'`;
    const stored = new Set(rows.map((r) => r.slug));
    for (const x of answers.filter((y) => y.kind === 'write' && y.a.status === 200))
      expect(stored.has(x.slug!)).toBe(true);
    const audited = await db<{ target_id: string }[]>`select target_id from audit_log where target_type = 'category'`;
    const auditedIds = new Set(audited.map((r) => r.target_id));
    for (const r of rows) expect(auditedIds.has(r.id)).toBe(true);
  } finally {
    await db.end();
  }
}, 90_000);
