/**
 * The MCP proxy's limits per personal access token and per person, against a real MCP server
 * (tests/mcp-harness.ts): open calls and streams at once (HUB_MCP_MAX_STREAMS_PER_TOKEN, HUB_MCP_MAX_STREAMS_PER_USER),
 * live tokens per person and instance (10), bytes per response (HUB_MCP_MAX_RESPONSE_BYTES), idle time
 * (HUB_MCP_IDLE_TIMEOUT_MS), and back-pressure: a client that does not read does not make the Hub buffer the stream.
 */
import http, { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PAT_MAX_LIVE_PER_INSTANCE } from '../../server/domain/pats';
import { openMcpCalls, openMcpCallsOfUser } from '../../server/http/mcp/limits';
import { api, createKey, createOrg, createUser } from '../helpers';
import { mintToken, rawInitialize, registerMcpUrl, sessionHeaders } from '../mcp-harness';
import { useMcpInstance } from '../fixtures/mcp-instance';
import { reloadConfig } from '../../server/config';

const mcp = useMcpInstance({ admin: { email: 'limits@example.test', name: 'Limits' }, keyName: 'core-limits' });
let { hub, upstream, admin: alice, org, key } = mcp;
beforeAll(() => void ({ hub, upstream, admin: alice, org, key } = mcp));

afterEach(() => {
  delete process.env.HUB_MCP_MAX_STREAMS_PER_TOKEN;
  delete process.env.HUB_MCP_MAX_STREAMS_PER_USER;
  delete process.env.HUB_MCP_MAX_RESPONSE_BYTES;
  delete process.env.HUB_MCP_IDLE_TIMEOUT_MS;
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
  expect(init.status, JSON.stringify(init.body)).toBe(200);
  return init.headers.get('mcp-session-id')!;
}

/** A raw tools/call POST (the response is returned unread). */
function callTool(token: string, sessionId: string, id: number, name: string, args: Record<string, unknown>) {
  return fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers: { ...sessionHeaders(token, sessionId), 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
}

function connect(token: string) {
  const client = new Client({ name: 'limits-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  return { client, ready: client.connect(transport) };
}

describe('open calls and streams per token', () => {
  it('refuses the call over HUB_MCP_MAX_STREAMS_PER_TOKEN with 429, Retry-After and a JSON-RPC error; other tokens are unaffected', async () => {
    const pat = await mintToken(alice.token, key.id, { name: 'busy' });
    const other = await mintToken(alice.token, key.id, { name: 'other' });
    const sid = await session(pat.token);
    const otherSid = await session(other.token);
    process.env.HUB_MCP_MAX_STREAMS_PER_TOKEN = '2';
    reloadConfig();

    // Two calls that keep their streams open for a while fill the token's slots.
    const base = upstream.requests.length;
    const slow = [
      callTool(pat.token, sid, 11, 'sleep', { ms: 1_500 }),
      callTool(pat.token, sid, 12, 'sleep', { ms: 1_500 }),
    ];
    // Both slots taken, and both calls arrived at the instance (a slot is taken before the call is forwarded).
    await waitFor(() => openMcpCalls(pat.id) === 2 && upstream.requests.length === base + 2);
    const forwardedBefore = upstream.requests.length;

    const refused = await callTool(pat.token, sid, 13, 'echo', { text: 'one too many' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 13,
      error: {
        code: -32013,
        message: expect.stringMatching(/Too many open MCP calls and streams with this token \(2 at once/),
      },
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
    reloadConfig();
    const controller = new AbortController();
    const res = await fetch(`${hub.url}/mcp`, {
      headers: sessionHeaders(pat.token, sid, 'text/event-stream'),
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

describe('open calls and streams per person, and tokens per person', () => {
  it('refuses the call over HUB_MCP_MAX_STREAMS_PER_USER whichever token of that person it uses; another person is unaffected', async () => {
    const dana = await createUser({ email: 'dana-limits@example.test', name: 'Dana' });
    const erin = await createUser({ email: 'erin-limits@example.test', name: 'Erin' });
    const team = await createOrg({ admin: dana, members: [erin] });
    const k = await createKey(team.id, 'person-limits');
    await registerMcpUrl(k, upstream.mcpUrl(k.id));
    const [one, two, three] = [
      await mintToken(dana.token, k.id),
      await mintToken(dana.token, k.id),
      await mintToken(dana.token, k.id),
    ];
    const theirs = await mintToken(erin.token, k.id);
    const sids = [await session(one.token), await session(two.token), await session(three.token)];
    const theirSid = await session(theirs.token);
    process.env.HUB_MCP_MAX_STREAMS_PER_USER = '2';
    reloadConfig();

    // One slow call on each of two tokens: each token is far below its own limit (64), the person is at theirs.
    const base = upstream.requests.length;
    const slow = [
      callTool(one.token, sids[0]!, 31, 'sleep', { ms: 1_500 }),
      callTool(two.token, sids[1]!, 32, 'sleep', { ms: 1_500 }),
    ];
    await waitFor(() => openMcpCallsOfUser(dana.id) === 2 && upstream.requests.length === base + 2);
    const forwardedBefore = upstream.requests.length;
    const refused = await callTool(three.token, sids[2]!, 33, 'echo', { text: 'a third stream' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 33,
      error: {
        code: -32013,
        message: expect.stringMatching(/this person over all their tokens \(2 at once, HUB_MCP_MAX_STREAMS_PER_USER\)/),
      },
    });
    expect(upstream.requests.length).toBe(forwardedBefore);

    const elsewhere = await callTool(theirs.token, theirSid, 41, 'echo', { text: 'not Dana' });
    expect(elsewhere.status).toBe(200);
    expect(await elsewhere.text()).toContain('echo: not Dana');

    for (const res of await Promise.all(slow)) expect(await res.text()).toContain('slept 1500 ms');
    await waitFor(() => openMcpCallsOfUser(dana.id) === 0);
    const again = await callTool(three.token, sids[2]!, 34, 'echo', { text: 'now' });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('echo: now');
  });

  it(`mints at most ${PAT_MAX_LIVE_PER_INSTANCE} live tokens per person and instance; revoking one makes room`, async () => {
    const fay = await createUser({ email: 'fay-limits@example.test', name: 'Fay' });
    const team = await createOrg({ admin: fay });
    const k = await createKey(team.id, 'token-cap');
    const other = await createKey(team.id, 'token-cap-2');
    const minted = [];
    for (let i = 0; i < PAT_MAX_LIVE_PER_INSTANCE; i++)
      minted.push(await mintToken(fay.token, k.id, { name: `t${i}` }));
    const over = await api('/account/tokens', {
      method: 'POST',
      token: fay.token,
      body: { name: 'one more', instance_id: k.id },
    });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/already have 10 live personal access tokens for this instance.*revoke one/),
    });
    // Another instance has its own count.
    expect((await mintToken(fay.token, other.id)).instance_id).toBe(other.id);
    const revoked = await api('/account/tokens', { method: 'DELETE', token: fay.token, body: { id: minted[0]!.id } });
    expect(revoked.status).toBe(200);
    expect((await mintToken(fay.token, k.id, { name: 'replacement' })).instance_id).toBe(k.id);
  });
});

describe('back-pressure', () => {
  it('a client that stops reading an SSE stream pauses the instance: the Hub does not buffer what the client has not read', async () => {
    const CHUNK = Buffer.from(`data: ${'x'.repeat(64 * 1024 - 8)}\n\n`);
    const TOTAL_CHUNKS = 2_048; // 128 MiB
    let written = 0;
    const instance = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (written < TOTAL_CHUNKS) {
          written++;
          if (!res.write(CHUNK)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((r) => instance.listen(0, '127.0.0.1', () => r()));
    try {
      const k = await createKey(org.id, 'fast-stream');
      await registerMcpUrl(k, `http://127.0.0.1:${(instance.address() as AddressInfo).port}/mcp`);
      const pat = await mintToken(alice.token, k.id, { name: 'slow reader' });
      process.env.HUB_MCP_MAX_RESPONSE_BYTES = String(TOTAL_CHUNKS * CHUNK.byteLength);
      reloadConfig();
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const url = new URL(`${hub.url}/mcp`);
        const req = http.request({
          host: url.hostname,
          port: url.port,
          path: '/mcp',
          headers: { authorization: `Bearer ${pat.token}`, accept: 'text/event-stream' },
        });
        req.once('response', resolve).once('error', reject).end();
      });
      expect(res.statusCode).toBe(200);
      res.pause(); // a client that reads nothing
      // The instance writes until every buffer on the way is full, then waits: the count stops growing.
      let last = -1;
      while (written !== last) {
        last = written;
        await new Promise((r) => setTimeout(r, 500));
      }
      // What is held is the sockets' buffers (kernel and Node), ~10 MiB here, not the stream's 128 MiB (without
      // back-pressure the instance writes all of it into the Hub at once).
      expect(written * CHUNK.byteLength).toBeLessThan(48 * 1024 * 1024);
      // Once the client reads, everything arrives, in full.
      let received = 0;
      res.on('data', (chunk: Buffer) => (received += chunk.byteLength));
      res.resume();
      await new Promise((r) => res.once('end', r));
      expect(received).toBe(TOTAL_CHUNKS * CHUNK.byteLength);
      await waitFor(() => openMcpCalls(pat.id) === 0);
    } finally {
      instance.closeAllConnections();
      instance.close();
    }
  }, 60_000);
});

describe('bytes per response', () => {
  it('cuts a streamed answer past HUB_MCP_MAX_RESPONSE_BYTES: the call fails with the reason, smaller answers pass', async () => {
    const pat = await mintToken(alice.token, key.id, { name: 'bytes' });
    process.env.HUB_MCP_MAX_RESPONSE_BYTES = '20000';
    reloadConfig();
    const { client, ready } = connect(pat.token);
    await ready;
    try {
      const small = await client.callTool({ name: 'echo', arguments: { text: 'y'.repeat(5_000) } });
      expect((small.content as Array<{ text: string }>)[0]!.text).toBe(`echo: ${'y'.repeat(5_000)}`);
      await expect(client.callTool({ name: 'echo', arguments: { text: 'z'.repeat(30_000) } })).rejects.toThrow(
        /exceeded 20000 bytes.*HUB_MCP_MAX_RESPONSE_BYTES/,
      );
    } finally {
      await client.close();
    }
    await waitFor(() => openMcpCalls(pat.id) === 0);
  });

  it('refuses an answer whose Content-Length is over the limit with 502 before relaying any of it', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { blob: 'b'.repeat(80_000) } });
    const instance = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big),
    );
    await new Promise<void>((r) => instance.listen(0, '127.0.0.1', () => r()));
    try {
      const k = await createKey(org.id, 'big-answers');
      await registerMcpUrl(k, `http://127.0.0.1:${(instance.address() as AddressInfo).port}/mcp`);
      const pat = await mintToken(alice.token, k.id);
      process.env.HUB_MCP_MAX_RESPONSE_BYTES = '50000';
      reloadConfig();
      const res = await rawInitialize(hub.url, `Bearer ${pat.token}`);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32013, message: expect.stringMatching(/exceeds the Hub's limit of 50000 bytes/) },
      });
      expect(res.text).not.toContain('bbbb');
      delete process.env.HUB_MCP_MAX_RESPONSE_BYTES;
      reloadConfig();
      const allowed = await rawInitialize(hub.url, `Bearer ${pat.token}`);
      expect(allowed.status).toBe(200);
      expect(allowed.text.length).toBe(big.length);
    } finally {
      instance.closeAllConnections();
      instance.close();
    }
  });

  it("passes a sized answer's Content-Length on, and aborts one that ends short of it instead of ending it as whole", async () => {
    const whole = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'whole' } });
    const instance = createServer((req, res) => {
      if (req.headers['mcp-session-id'] !== 'short')
        return res.writeHead(200, { 'content-type': 'application/json', 'content-length': whole.length }).end(whole);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{"jsonrpc":"2.0",', () => res.destroy());
    });
    await new Promise<void>((r) => instance.listen(0, '127.0.0.1', () => r()));
    try {
      const k = await createKey(org.id, 'sized-answers');
      await registerMcpUrl(k, `http://127.0.0.1:${(instance.address() as AddressInfo).port}/mcp`);
      const pat = await mintToken(alice.token, k.id);
      const post = (sessionId: string) =>
        fetch(`${hub.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${pat.token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      const sized = await post('whole');
      expect(sized.status).toBe(200);
      expect(sized.headers.get('content-length')).toBe(String(whole.length));
      expect(sized.headers.get('transfer-encoding')).toBeNull();
      expect(await sized.text()).toBe(whole);
      const short = await post('short');
      expect(short.status).toBe(200);
      await expect(short.text()).rejects.toThrow();
      await waitFor(() => openMcpCalls(pat.id) === 0);
    } finally {
      instance.closeAllConnections();
      instance.close();
    }
  });
});

describe('connections to the instance', () => {
  it("drops an idle connection before the instance's own keep-alive timeout ends it (no reset on reuse)", async () => {
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} });
    let connections = 0;
    const instance = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer),
    );
    // Answers carry `Keep-Alive: timeout=2`: the Hub may reuse a connection for a second, then must not.
    instance.keepAliveTimeout = 2_000;
    instance.on('connection', () => connections++);
    await new Promise<void>((r) => instance.listen(0, '127.0.0.1', () => r()));
    try {
      const k = await createKey(org.id, 'keep-alive');
      await registerMcpUrl(k, `http://127.0.0.1:${(instance.address() as AddressInfo).port}/mcp`);
      const pat = await mintToken(alice.token, k.id);
      expect((await rawInitialize(hub.url, `Bearer ${pat.token}`)).status).toBe(200);
      expect((await rawInitialize(hub.url, `Bearer ${pat.token}`)).status).toBe(200);
      expect(connections).toBe(1); // reused while the instance keeps it
      // Past the instance's timeout less a second, before its own: the Hub has let the connection go.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await rawInitialize(hub.url, `Bearer ${pat.token}`)).status).toBe(200);
      expect(connections).toBe(2);
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
    reloadConfig();
    const started = Date.now();
    const res = await callTool(pat.token, sid, 7, 'sleep', { ms: 4_000 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    expect(Date.now() - started).toBeLessThan(2_500);
    // The pending call gets a JSON-RPC error for its id instead of hanging.
    const event = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)))
      .at(-1);
    expect(event).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32013, message: expect.stringMatching(/sent nothing for 300 ms.*HUB_MCP_IDLE_TIMEOUT_MS/) },
    });
    expect(text).not.toContain('slept');
    // The Hub's connection to the instance is gone (no socket pinned), and so is the token's slot.
    await waitFor(() => upstream.open() === 0, 2_000);
    expect(openMcpCalls(pat.id)).toBe(0);
  });

  it('an MCP client sees the idle cut as the failed call; answers within the idle time pass', async () => {
    const pat = await mintToken(alice.token, key.id, { name: 'idle-sdk' });
    const sid = await session(pat.token);
    process.env.HUB_MCP_IDLE_TIMEOUT_MS = '1000';
    reloadConfig();
    const quick = await callTool(pat.token, sid, 8, 'sleep', { ms: 200 });
    expect(await quick.text()).toContain('slept 200 ms');

    const { client, ready } = connect(pat.token);
    await ready;
    try {
      await expect(client.callTool({ name: 'sleep', arguments: { ms: 5_000 } })).rejects.toThrow(
        /sent nothing for 1000 ms/,
      );
    } finally {
      await client.close();
    }
  });
});
