/**
 * A rolling restart: two Hub processes (the production edge, tests/fixtures/edge-process.ts) on one
 * PostgreSQL database behind a simple round-robin in this test that, like nginx's proxy_next_upstream,
 * sends a request to the other process when a connection is refused or closed before any answer. One
 * process gets SIGTERM mid-load (it drains and exits 0) and a new one takes its place: no request fails.
 * Then the same behind a balancer that routes only by health checks (/readyz every 100 ms, no retries),
 * with HUB_SHUTDOWN_READY_DELAY_MS: the draining process says 503 while it still serves, and is out of
 * rotation before its socket closes.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';

const serverUrl = process.env.PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `hub_rolling_${randomBytes(4).toString('hex')}`;
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const env = {
  ...process.env,
  DATABASE_URL: dbUrl,
  HUB_URL: 'http://hub.test',
  HUB_SECRET: 'rolling-test-secret',
  HUB_LOG_LEVEL: 'warn',
  HUB_SHUTDOWN_TIMEOUT_MS: '5000',
};
const tsx = path.join(process.cwd(), 'node_modules/.bin/tsx');
const run = promisify(execFile);
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
const children: ChildProcess[] = [];

function startHub(extra: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/fixtures/edge-process.ts'], {
    env: { ...env, ...extra },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      const m = /LISTENING (\S+)/.exec(String(d));
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`hub process exited ${code}`)));
  });
}

beforeAll(async () => {
  await admin.unsafe(`create database ${dbName}`);
  await run(tsx, ['server/cli.ts', 'migrate'], { env });
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
});

it('restarting one of two processes loses no request', async () => {
  const backends = await Promise.all([startHub(), startHub()]);
  let turn = 0;
  const failed: string[] = [];
  let served = 0;
  /** Round-robin; a refused or closed connection (no answer yet) goes to the next backend. */
  async function send() {
    const first = turn++;
    for (let attempt = 0; attempt < backends.length; attempt++) {
      const backend = backends[(first + attempt) % backends.length]!;
      try {
        const res = await fetch(`${backend.url}/api/v1/catalog/categories`, { signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
        if (res.status !== 200) failed.push(`status ${res.status}`);
        else served++;
        return;
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause;
        if (!['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(cause?.code ?? ''))
          return void failed.push(String(err));
      }
    }
    failed.push('no backend answered');
  }
  let running = true;
  const load = Promise.all(
    Array.from({ length: 4 }, async () => {
      while (running) await send();
    }),
  );
  await new Promise((r) => setTimeout(r, 1_000));
  const old = backends[0]!;
  const exited = new Promise<number | null>((resolve) => old.child.once('exit', resolve));
  old.child.kill('SIGTERM');
  expect(await exited).toBe(0);
  backends[0] = await startHub();
  await new Promise((r) => setTimeout(r, 1_000));
  running = false;
  await load;
  expect(failed).toEqual([]);
  expect(served).toBeGreaterThan(100);
}, 120_000);

it('behind a balancer that follows /readyz (no retries), HUB_SHUTDOWN_READY_DELAY_MS takes the process out before it stops accepting', async () => {
  const delayed = { HUB_SHUTDOWN_READY_DELAY_MS: '1500' };
  const backends = await Promise.all([startHub(delayed), startHub(delayed)]);
  const ready = new Map<string, boolean>(backends.map((b) => [b.url, true]));
  const old = backends[0]!;
  let sawDraining = false;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      await Promise.all(
        backends.map(async (b) => {
          try {
            const res = await fetch(`${b.url}/readyz`, { signal: AbortSignal.timeout(1_000) });
            await res.arrayBuffer();
            ready.set(b.url, res.status === 200);
            if (b === old && res.status === 503) sawDraining = true;
          } catch {
            ready.set(b.url, false);
          }
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  let turn = 0;
  const failed: string[] = [];
  let served = 0;
  async function send() {
    const inRotation = backends.filter((b) => ready.get(b.url));
    if (inRotation.length === 0) return void failed.push('no backend in rotation');
    const backend = inRotation[turn++ % inRotation.length]!;
    try {
      const res = await fetch(`${backend.url}/api/v1/catalog/categories`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (res.status !== 200) failed.push(`status ${res.status}`);
      else served++;
    } catch (err) {
      failed.push(`${backend === old ? 'old' : 'other'} backend: ${String((err as { cause?: unknown }).cause ?? err)}`);
    }
  }
  let running = true;
  const load = Promise.all(
    Array.from({ length: 4 }, async () => {
      while (running) await send();
    }),
  );
  await new Promise((r) => setTimeout(r, 1_000));
  const exited = new Promise<number | null>((resolve) => old.child.once('exit', resolve));
  old.child.kill('SIGTERM');
  expect(await exited).toBe(0);
  const replacement = await startHub(delayed);
  ready.set(replacement.url, false); // in rotation once its own /readyz says so
  backends[0] = replacement;
  await new Promise((r) => setTimeout(r, 1_000));
  running = false;
  await load;
  polling = false;
  await poller;
  expect(failed).toEqual([]);
  expect(sawDraining).toBe(true);
  expect(ready.get(replacement.url)).toBe(true);
  expect(served).toBeGreaterThan(100);
}, 120_000);
