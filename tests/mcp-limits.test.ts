/**
 * The MCP proxy's limits per personal access token, against a real MCP server (tests/mcp-harness.ts):
 * open calls and streams at once (HUB_MCP_MAX_STREAMS_PER_TOKEN), bytes per response
 * (HUB_MCP_MAX_RESPONSE_BYTES) and idle time (HUB_MCP_IDLE_TIMEOUT_MS).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openMcpCalls } from '../server/mcp/proxy';
import { createKey, createOrg, createUser } from './helpers';
import { mintToken, rawInitialize, registerMcpUrl, startHub, startUpstream, type RunningServer, type Upstream } from './mcp-harness';

process.env.HUB_ALLOW_PRIVATE_UPSTREAMS = 'true';

let hub: RunningServer;
let upstream: Upstream;
let alice: Awaited<ReturnType<typeof createUser>>;
let org: Awaited<ReturnType<typeof createOrg>>;
let key: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  hub = await startHub();
  alice = await createUser({ email: 'limits@example.test', name: 'Limits' });
  org = await createOrg({ admin: alice });
  key = await createKey(org.id, 'core-limits');
  upstream = await startUpstream({ hubUrl: hub.url });
  await registerMcpUrl(key, upstream.mcpUrl(key.id));
});

afterEach(() => {
  delete process.env.HUB_MCP_MAX_STREAMS_PER_TOKEN;
  delete process.env.HUB_MCP_MAX_RESPONSE_BYTES;
  delete process.env.HUB_MCP_IDLE_TIMEOUT_MS;
});

afterAll(async () => {
  await upstream?.close();
  await hub?.close();
});

async function waitFor(check: () => boolean, ms = 5_000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A session opened with a raw initialize; its id for the calls that follow. */
async function session(token: string) {
  const init = await rawInitialize(hub.url, `Bearer ${token}`);
  expect(init.status).toBe(200);
  return init.headers.get('mcp-session-id')!;
}

/** A raw tools/call POST (the response is returned unread). */
function callTool(token: string, sessionId: string, id: number, name: string, args: Record<string, unknown>) {
  return fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
}

function connect(token: string) {
  const client = new Client({ name: 'limits-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  return { client, ready: client.connect(transport) };
}

describe('open calls and streams per token', () => {
  it('refuses the call over HUB_MCP_MAX_STREAMS_PER_TOKEN with 429, Retry-After and a JSON-RPC error; other tokens are unaffected', async () => {
    const pat = await mintToken(alice.token, key.id, { name: 'busy' });
    const other = await mintToken(alice.token, key.id, { name: 'other' });
    const sid = await session(pat.token);
    const otherSid = await session(other.token);
    process.env.HUB_MCP_MAX_STREAMS_PER_TOKEN = '2';

    // Two calls that keep their streams open for a while fill the token's slots.
    const slow = [callTool(pat.token, sid, 11, 'sleep', { ms: 1_500 }), callTool(pat.token, sid, 12, 'sleep', { ms: 1_500 })];
    await waitFor(() => openMcpCalls(pat.id) === 2);
    const forwardedBefore = upstream.requests.length;

    const refused = await callTool(pat.token, sid, 13, 'echo', { text: 'one too many' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 13,
      error: { code: -32013, message: expect.stringMatching(/Too many open MCP calls and streams with this token \(2 at once/) },
    });
    expect(upstream.requests.length).toBe(forwardedBefore); // never reached the instance

    // Another token of the same user and instance has its own slots.
    const elsewhere = await callTool(other.token, otherSid, 21, 'echo', { text: 'fine' });
    expect(elsewhere.status).toBe(200);
    expect(await elsewhere.text()).toContain('echo: fine');

    // Once the slow calls have finished, their slots are free again.
    for (const res of await Promise.all(slow)) {
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('slept 1500 ms');
    }
    await waitFor(() => openMcpCalls(pat.id) === 0);
    const again = await callTool(pat.token, sid, 14, 'echo', { text: 'again' });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('echo: again');
    await waitFor(() => openMcpCalls(pat.id) === 0);
  });

  it('frees the slot of a stream the client abandons', async () => {
    const pat = await mintToken(alice.token, key.id, { name: 'abandon' });
    const sid = await session(pat.token);
    process.env.HUB_MCP_MAX_STREAMS_PER_TOKEN = '1';
    const controller = new AbortController();
    const res = await fetch(`${hub.url}/mcp`, {
      headers: { authorization: `Bearer ${pat.token}`, accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(openMcpCalls(pat.id)).toBe(1);
    expect((await callTool(pat.token, sid, 2, 'echo', { text: 'x' })).status).toBe(429);
    controller.abort();
    await waitFor(() => openMcpCalls(pat.id) === 0);
    const after = await callTool(pat.token, sid, 3, 'echo', { text: 'x' });
    expect(after.status).toBe(200);
    await after.text();
  });
});

describe('bytes per response', () => {
  it('cuts a streamed answer past HUB_MCP_MAX_RESPONSE_BYTES: the call fails with the reason, smaller answers pass', async () => {
    const pat = await mintToken(alice.token, key.id, { name: 'bytes' });
    process.env.HUB_MCP_MAX_RESPONSE_BYTES = '20000';
    const { client, ready } = connect(pat.token);
    await ready;
    try {
      const small = await client.callTool({ name: 'echo', arguments: { text: 'y'.repeat(5_000) } });
      expect((small.content as Array<{ text: string }>)[0]!.text).toBe(`echo: ${'y'.repeat(5_000)}`);
      await expect(client.callTool({ name: 'echo', arguments: { text: 'z'.repeat(30_000) } })).rejects.toThrow(/exceeded 20000 bytes.*HUB_MCP_MAX_RESPONSE_BYTES/);
    } finally {
      await client.close();
    }
    await waitFor(() => openMcpCalls(pat.id) === 0);
  });

  it('refuses an answer whose Content-Length is over the limit with 502 before relaying any of it', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { blob: 'b'.repeat(80_000) } });
    const instance = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big));
    await new Promise<void>((r) => instance.listen(0, '127.0.0.1', () => r()));
    try {
      const k = await createKey(org.id, 'big-answers');
      await registerMcpUrl(k, `http://127.0.0.1:${(instance.address() as AddressInfo).port}/mcp`);
      const pat = await mintToken(alice.token, k.id);
      process.env.HUB_MCP_MAX_RESPONSE_BYTES = '50000';
      const res = await rawInitialize(hub.url, `Bearer ${pat.token}`);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32013, message: expect.stringMatching(/exceeds the Hub's limit of 50000 bytes/) } });
      expect(res.text).not.toContain('bbbb');
      delete process.env.HUB_MCP_MAX_RESPONSE_BYTES;
      const allowed = await rawInitialize(hub.url, `Bearer ${pat.token}`);
      expect(allowed.status).toBe(200);
      expect(allowed.text.length).toBe(big.length);
    } finally {
      instance.closeAllConnections();
      instance.close();
    }
  });
});

describe('idle time', () => {
  it('closes a started answer that relays nothing for HUB_MCP_IDLE_TIMEOUT_MS, and the instance connection with it', async () => {
    const pat = await mintToken(alice.token, key.id, { name: 'idle' });
    const sid = await session(pat.token);
    process.env.HUB_MCP_IDLE_TIMEOUT_MS = '300';
    const started = Date.now();
    const res = await callTool(pat.token, sid, 7, 'sleep', { ms: 4_000 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    expect(Date.now() - started).toBeLessThan(2_500);
    // The pending call gets a JSON-RPC error for its id instead of hanging.
    const event = text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6))).at(-1);
    expect(event).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32013, message: expect.stringMatching(/sent nothing for 300 ms.*HUB_MCP_IDLE_TIMEOUT_MS/) } });
    expect(text).not.toContain('slept');
    // The Hub's connection to the instance is gone (no socket pinned), and so is the token's slot.
    await waitFor(() => upstream.open() === 0, 2_000);
    expect(openMcpCalls(pat.id)).toBe(0);
  });

  it('an MCP client sees the idle cut as the failed call; answers within the idle time pass', async () => {
    const pat = await mintToken(alice.token, key.id, { name: 'idle-sdk' });
    const sid = await session(pat.token);
    process.env.HUB_MCP_IDLE_TIMEOUT_MS = '1000';
    const quick = await callTool(pat.token, sid, 8, 'sleep', { ms: 200 });
    expect(await quick.text()).toContain('slept 200 ms');

    const { client, ready } = connect(pat.token);
    await ready;
    try {
      await expect(client.callTool({ name: 'sleep', arguments: { ms: 5_000 } })).rejects.toThrow(/sent nothing for 1000 ms/);
    } finally {
      await client.close();
    }
  });
});
