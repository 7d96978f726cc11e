/**
 * The client address every path of the production edge rate-limits on (tests/fixtures/edge-process.ts, the
 * code `npm start` runs minus Next.js), over real TCP connections from different loopback addresses:
 * REST and /mcp count against the same per-address limit (HUB_RATE_LIMIT_ADDRESS) of the socket's peer,
 * another address is unaffected, a forged X-Forwarded-For changes nothing, and behind a proxy listed in
 * HUB_TRUSTED_PROXIES the client it names is limited on its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { node } from '../compiled';

const LIMIT = 6;
const PROXY = '127.0.0.4';

let hub: ChildProcess;
let port = 0;

function start() {
  const env = {
    ...process.env,
    DATABASE_URL: '',
    HUB_DATA_DIR: 'memory://',
    HUB_LOG_LEVEL: 'warn',
    HUB_RATE_LIMIT_ADDRESS: String(LIMIT),
    HUB_RATE_LIMIT_ANONYMOUS: '1000',
    HUB_RATE_LIMIT_FAILED_AUTH: '1000',
    HUB_TRUSTED_PROXIES: PROXY,
  };
  hub = spawn(...node('edge-process'), { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  return new Promise<number>((resolve, reject) => {
    hub.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /LISTENING http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (m) resolve(Number(m[1]));
    });
    hub.once('exit', (code) => reject(new Error(`hub process exited ${code}`)));
  });
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** One request on a new connection from `from` (a loopback address of this machine). */
function send(
  from: string,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const body = method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        method,
        path,
        agent: false,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const rest = (from: string, headers?: Record<string, string>) =>
  send(from, 'GET', '/api/v1/catalog/categories', headers);
const mcp = (from: string, headers?: Record<string, string>) => send(from, 'POST', '/mcp', headers);

function expectAddressLimited(answer: Answer) {
  expect(answer.status).toBe(429);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  expect(answer.headers['ratelimit-policy']).toBe(`"address";q=${LIMIT};w=60`);
  expect(answer.headers.ratelimit).toMatch(/^"address";r=0;t=\d+$/);
  expect(answer.body).toMatchObject({ code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/from this address/) });
}

beforeAll(async () => {
  port = await start();
  // Windows are fixed minutes: run well inside one, so the counts are not split.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
}, 120_000);

afterAll(() => {
  if (hub.exitCode === null) hub.kill('SIGKILL');
});

it('REST and /mcp share the per-address limit of the real peer; another address, and a forged X-Forwarded-For, change nothing', async () => {
  const a = '127.0.0.2';
  const b = '127.0.0.3';
  // REST and /mcp (no token: 401) from one address count together.
  for (let i = 0; i < LIMIT / 2; i++) {
    expect((await rest(a)).status).toBe(200);
    expect((await mcp(a)).status).toBe(401);
  }
  expectAddressLimited(await rest(a));
  expectAddressLimited(await mcp(a));
  // Claiming another address does not escape the limit: the peer is appended to the chain, and it is no trusted proxy.
  expectAddressLimited(await rest(a, { 'x-forwarded-for': '203.0.113.50' }));
  expectAddressLimited(await mcp(a, { 'x-forwarded-for': '203.0.113.51' }));

  // Another address has its own budget.
  const other = await rest(b);
  expect(other.status).toBe(200);
  expect(other.headers.ratelimit).toMatch(new RegExp(`^"address";r=${LIMIT - 1};t=\\d+$`));
  expect((await mcp(b)).status).toBe(401);
});

it('behind a trusted proxy, each forwarded client has its own budget', async () => {
  const first = { 'x-forwarded-for': '198.51.100.1' };
  for (let i = 0; i < LIMIT; i++) expect((await (i % 2 ? mcp : rest)(PROXY, first)).status).toBe(i % 2 ? 401 : 200);
  expectAddressLimited(await rest(PROXY, first));
  expectAddressLimited(await mcp(PROXY, first));
  // Another client through the same proxy, and the client as the left entry of a longer chain it cannot forge.
  expect((await rest(PROXY, { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200);
  expectAddressLimited(await rest(PROXY, { 'x-forwarded-for': '10.0.0.9, 198.51.100.1' }));
});
