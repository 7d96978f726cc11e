/**
 * SIGTERM during open /mcp streams, with the production edge in its own process (tests/fixtures/edge-process.ts,
 * the code `npm start` runs minus Next.js) in front of a real MCP server (tests/mcp-harness.ts): a streamed tool
 * call and a plain call started before the signal complete, the client's GET stream stays open until
 * HUB_SHUTDOWN_TIMEOUT_MS, no new connection is accepted, and the process exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rawInitialize, sessionHeaders, startUpstream, type Upstream } from '../mcp-harness';
import { node } from '../compiled';

const DEADLINE_MS = 4_000;

let hub: ChildProcess;
let base: string;
let upstream: Upstream;
let fixture: { userToken: string; keyId: string; keySecret: string };
let output = '';

function start() {
  const env = {
    ...process.env,
    DATABASE_URL: '',
    HUB_DATA_DIR: 'memory://',
    HUB_LOG_LEVEL: 'info',
    HUB_SHUTDOWN_TIMEOUT_MS: String(DEADLINE_MS),
    HUB_ALLOW_PRIVATE_UPSTREAMS: 'true',
    EDGE_FIXTURE_MCP: '1',
  };
  hub = spawn(...node('edge-process'), { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise<string>((resolve, reject) => {
    hub.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const f = /FIXTURE (\{.*\})/.exec(output);
      if (f) fixture = JSON.parse(f[1]!);
      const m = /LISTENING (\S+)/.exec(output);
      if (m) resolve(m[1]!);
    });
    hub.once('exit', (code) => reject(new Error(`hub process exited ${code}`)));
  });
}

async function rest(method: string, path: string, token: string, body: unknown) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** JSON-RPC messages of an SSE body as they arrive, each with the time it arrived. */
async function* sse(res: Response): AsyncGenerator<{ at: number; message: any }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (data) yield { at: Date.now(), message: JSON.parse(data) };
    }
  }
}

beforeAll(async () => {
  base = await start();
  upstream = await startUpstream({ hubUrl: base });
}, 120_000);

afterAll(async () => {
  if (hub.exitCode === null) hub.kill('SIGKILL');
  await upstream?.close();
});

it('SIGTERM during open /mcp streams: calls in flight complete, the GET stream runs to the deadline, exit 0', async () => {
  // The instance reports its MCP URL and the user mints a token, over REST, as they would.
  await rest('PUT', '/instance-info', fixture.keySecret, { mcp_url: upstream.mcpUrl(fixture.keyId) });
  const pat = (await rest('POST', '/account/tokens', fixture.userToken, { name: 'drain', instance_id: fixture.keyId }))
    .token.token as string;
  const init = await rawInitialize(base, `Bearer ${pat}`);
  expect(init.status).toBe(200);
  const headers = { ...sessionHeaders(pat, init.headers.get('mcp-session-id')!), 'content-type': 'application/json' };
  const post = (body: unknown) => fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });

  // The client's standalone GET stream (server-to-client messages).
  const getStream = await fetch(`${base}/mcp`, { headers: { ...headers, accept: 'text/event-stream' } });
  expect(getStream.status).toBe(200);
  const getEnded = (async () => {
    for await (const _ of sse(getStream)) {
      /* nothing is expected on it */
    }
    return Date.now();
  })().catch(() => Date.now());

  // A plain call and a streamed one (8 progress events 250 ms apart), both started before the signal.
  const plain = post({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'sleep', arguments: { ms: 1_500 } },
  });
  const streamed = await post({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'ticks', arguments: { count: 8, everyMs: 250 }, _meta: { progressToken: 'p' } },
  });
  expect(streamed.status).toBe(200);

  // 'close', not 'exit': it comes after the process's stdout is read to its end (its last log line included).
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    hub.once('close', (code) => resolve({ code, at: Date.now() })),
  );
  let signalledAt = 0;
  const progress: number[] = [];
  let result: any;
  for await (const { at, message } of sse(streamed)) {
    if (message.method === 'notifications/progress') {
      progress.push(message.params.progress);
      if (progress.length === 1) {
        hub.kill('SIGTERM'); // the first event has arrived: the stream is open
        signalledAt = Date.now();
      } else expect(at).toBeGreaterThan(signalledAt);
    } else result = message;
  }
  // Every event of the stream arrived, the last ones after SIGTERM, then the call's result.
  expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  expect(result).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'ticked 8' }] } });
  const plainAnswer = await plain;
  expect(plainAnswer.status).toBe(200);
  expect(await plainAnswer.text()).toContain('slept 1500 ms');

  // While draining, no new connection is accepted.
  await expect(fetch(`${base}/healthz`)).rejects.toThrow();

  // The GET stream stays open until the deadline, then the process closes it and exits 0.
  const { code, at } = await exited;
  expect(code).toBe(0);
  const getEndedAt = await getEnded;
  expect(getEndedAt - signalledAt).toBeGreaterThanOrEqual(DEADLINE_MS - 250);
  expect(at - signalledAt).toBeGreaterThanOrEqual(DEADLINE_MS - 250);
  expect(at - signalledAt).toBeLessThan(DEADLINE_MS + 5_000);
  const messages = output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
  expect(messages.find((m) => m.msg === 'draining')).toMatchObject({ reason: 'SIGTERM' });
  expect(messages.find((m) => m.msg === 'shutdown deadline reached: closing the remaining connections')).toMatchObject({
    cut: 1,
  });
  // "stopped" ends the drain's own lines; access lines of the connections cut at the deadline may follow it.
  expect(messages.filter((m) => m.msg !== 'request').at(-1)?.msg).toBe('stopped');
  // The instance's side of every stream is closed too (no socket left behind).
  const until = Date.now() + 2_000;
  while (upstream.open() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  expect(upstream.open()).toBe(0);
});
