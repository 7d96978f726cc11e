/**
 * The production edge in its own process (tests/fixtures/edge-process.ts, the code `npm start` runs minus
 * Next.js): health checks, request ids, access lines without secrets, security headers, and SIGTERM's drain
 * (an upload in progress when the signal arrives is still answered; then exit 0).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHttpError, toTRPCError } from '../../server/api/errors';
import { node } from '../compiled';

let hub: ChildProcess;
let base: string;
let output = '';

function start(extraEnv: Record<string, string> = {}) {
  const env = {
    ...process.env,
    DATABASE_URL: '',
    HUB_DATA_DIR: 'memory://',
    HUB_LOG_LEVEL: 'info',
    HUB_SHUTDOWN_TIMEOUT_MS: '10000',
    ...extraEnv,
  };
  hub = spawn(...node('edge-process'), { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise<string>((resolve, reject) => {
    hub.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /LISTENING (\S+)/.exec(output);
      if (m) resolve(m[1]!);
    });
    hub.once('exit', (code) => reject(new Error(`hub process exited ${code}`)));
  });
}

/** The JSON log lines written so far. */
const logLines = () =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

beforeAll(async () => {
  base = await start();
}, 120_000);

afterAll(() => {
  if (hub.exitCode === null) hub.kill('SIGKILL');
});

describe('health, request ids, logs and headers', () => {
  it('answers /healthz and /readyz', async () => {
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'pglite' });
  });

  it('echoes a request id, logs one access line without the secret, and sets security headers', async () => {
    const secret = `svh_${'a'.repeat(40)}`;
    const res = await fetch(`${base}/api/v1/catalog/categories?probe=1`, {
      headers: { authorization: `Bearer ${secret}`, 'x-request-id': 'req-test-0001' },
    });
    await res.arrayBuffer();
    expect(res.headers.get('x-request-id')).toBe('req-test-0001');
    const mine = await fetch(`${base}/api/v1/catalog/categories`);
    expect(mine.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // A header value that is not a plain id is replaced, not echoed.
    const odd = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'x y<script>' } });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    // /mcp's own answers (here a refused call) carry the same set as REST.
    const mcp = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'x-request-id': 'req-test-0002' } });
    await mcp.arrayBuffer();
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('x-request-id')).toBe('req-test-0002');

    for (const h of [res.headers, mine.headers, mcp.headers]) {
      expect(h.get('x-content-type-options')).toBe('nosniff');
      expect(h.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(h.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(h.get('strict-transport-security')).toBeNull(); // HUB_URL is http here
    }

    await new Promise((r) => setTimeout(r, 100));
    const line = logLines().find((l) => l.requestId === 'req-test-0001' && l.msg === 'request');
    expect(line).toMatchObject({
      method: 'GET',
      route: '/api/v1/catalog/categories',
      status: 401,
      caller: { kind: 'anonymous' },
    });
    expect(line!.durationMs).toEqual(expect.any(Number));
    expect(output).not.toContain(secret);
    expect(output).not.toContain('probe=1');
  });
});

describe('SIGTERM', () => {
  it('stops accepting, answers the upload in progress, then exits 0', async () => {
    const body = JSON.stringify({ name: 'Drained', slug: 'drained', description: 'x'.repeat(2000) });
    const half = Math.floor(body.length / 2);
    const answer = new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const req = http.request(
        `${base}/api/v1/admin/categories`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, half));
      setTimeout(() => req.end(body.slice(half)), 1_500);
    });
    await new Promise((r) => setTimeout(r, 300));
    // 'close', not 'exit': it comes after the process's stdout is read to its end (its last log line included).
    const exited = new Promise<number | null>((resolve) => hub.once('close', (code) => resolve(code)));
    hub.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    // No new connections while draining.
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    // The upload started before the signal is answered (401: no credential), on a connection that then closes.
    expect(await answer).toEqual({ status: 401, connection: 'close' });
    expect(await exited).toBe(0);
    const messages = logLines().map((l) => l.msg);
    expect(messages).toContain('draining');
    expect(messages.indexOf('stopped')).toBeGreaterThan(messages.indexOf('draining'));
  });
});

describe('the database unavailable', () => {
  it('maps to 503 with Retry-After on REST and to tRPC’s SERVICE_UNAVAILABLE; other failures stay 500', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const wrapped = new TRPCError({
      code: 'INTERNAL_SERVER_ERROR',
      cause: Object.assign(new Error('Failed query'), { cause: refused }),
    });
    expect(toHttpError(wrapped)).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'retry-after': '5' },
    });
    expect(toTRPCError(refused)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    const timedOut = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    expect(toHttpError(timedOut).status).toBe(503);
    expect(toHttpError(Object.assign(new Error('syntax'), { code: '42601' }))).toMatchObject({
      status: 500,
      message: 'Internal server error',
    });
  });
});
