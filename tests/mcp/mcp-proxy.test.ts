/**
 * The MCP proxy end to end: a real MCP client (the SDK's Client + StreamableHTTPClientTransport) talks to
 * the Hub's /mcp on a loopback server, which forwards to a real MCP server that verifies the Hub's
 * assertion against the Hub's JWKS.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eq } from 'drizzle-orm';
import { getDb } from '../../server/db/client';
import { mcpCalls, personalAccessTokens } from '../../server/db/schema';
import { isPrivateAddress } from '../../server/http/mcp/outbound';
import { createKey } from '../helpers';
import { mintToken, rawInitialize, registerMcpUrl, sessionHeaders } from '../mcp-harness';
import { useMcpInstance } from '../fixtures/mcp-instance';
import { reloadConfig } from '../../server/config';

const mcp = useMcpInstance({ admin: { email: 'alice@example.test', name: 'Alice' }, keyName: 'core-1' });
let { hub, upstream, admin: alice, org, key } = mcp;
let pat: Awaited<ReturnType<typeof mintToken>>;

beforeAll(async () => {
  ({ hub, upstream, admin: alice, org, key } = mcp);
  pat = await mintToken(alice.token, key.id, { name: 'claude' });
});

function connect(token: string) {
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  return { client, transport, ready: client.connect(transport) };
}

async function waitFor(check: () => boolean | Promise<boolean>, ms = 5_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('MCP client through the Hub', () => {
  it('lists tools, calls tools, receives a streamed notification, and the instance sees the right user', async () => {
    const before = upstream.requests.length;
    const { client, transport, ready } = connect(pat.token);
    await ready;

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'sleep', 'slow-progress', 'ticks', 'whoami']);

    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'echo: hello' }]);

    // A body over the Hub's inspection limit streams through unread.
    const big = 'x'.repeat(200_000);
    const bigEcho = await client.callTool({ name: 'echo', arguments: { text: big } });
    expect((bigEcho.content as Array<{ text: string }>)[0]!.text).toBe(`echo: ${big}`);

    const who = await client.callTool({ name: 'whoami', arguments: {} });
    const claims = JSON.parse((who.content as Array<{ text: string }>)[0]!.text);
    expect(claims).toMatchObject({
      iss: 'http://hub.test',
      aud: key.id,
      sub: alice.id,
      email: 'alice@example.test',
      name: 'Alice',
      org_id: org.id,
      token_id: pat.id,
      instance_id: key.id,
    });
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(60);

    // The tool sends a progress notification and then waits until the client has seen it:
    // only an unbuffered, streamed response lets this finish with "streamed".
    let resolveSeen!: () => void;
    upstream.progressSeen = { resolve: () => resolveSeen(), promise: new Promise<void>((r) => (resolveSeen = r)) };
    const progress: Array<{ progress: number; message?: string }> = [];
    const slow = await client.callTool({ name: 'slow-progress', arguments: {} }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        upstream.progressSeen?.resolve();
      },
    });
    expect(progress).toEqual([expect.objectContaining({ progress: 1, message: 'halfway' })]);
    expect(slow.content).toEqual([{ type: 'text', text: 'streamed' }]);

    // Every request reached the instance with the Hub's assertion, never the client's token,
    // and the session id went both ways.
    const mine = upstream.requests.slice(before);
    expect(mine.length).toBeGreaterThanOrEqual(5);
    for (const r of mine) {
      expect(r.authorization).toMatch(/^Bearer ey/);
      expect(r.authorization).not.toContain('svp_');
      expect(r.claims?.sub).toBe(alice.id);
    }
    // A fresh assertion per request: each has its own jti (instances refuse a replayed one).
    const jtis = mine.map((r) => r.claims?.jti);
    expect(jtis.every((j) => typeof j === 'string' && j.length > 0)).toBe(true);
    expect(new Set(jtis).size).toBe(mine.length);
    expect(transport.sessionId).toBeTruthy();
    expect(mine.filter((r) => r.rpcMethod !== 'initialize').every((r) => r.sessionId === transport.sessionId)).toBe(
      true,
    );

    await transport.terminateSession(); // DELETE passes through
    expect(upstream.requests.at(-1)).toMatchObject({
      method: 'DELETE',
      sessionId: transport.sessionId ?? expect.anything(),
    });
    await client.close();
  });

  it('records each call for the organization and updates last_used_at', async () => {
    const db = await getDb();
    await waitFor(async () => (await db.select().from(mcpCalls).where(eq(mcpCalls.tokenId, pat.id))).length > 0);
    const calls = await db.select().from(mcpCalls).where(eq(mcpCalls.tokenId, pat.id));
    const methods = calls.map((c) => c.method);
    expect(methods).toEqual(
      expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']),
    );
    for (const c of calls) {
      expect(c).toMatchObject({ orgId: org.id, instanceKeyId: key.id, userId: alice.id });
      expect(c.upstreamStatus === null || (c.upstreamStatus >= 200 && c.upstreamStatus < 500)).toBe(true);
    }
    expect(calls.find((c) => c.method === 'tools/list')?.upstreamStatus).toBe(200);
    // Last-used marks are a batched write of their own (server/auth/credentials.ts), not part of the call record.
    const patRow = async () =>
      (await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, pat.id)))[0]!;
    await waitFor(async () => (await patRow()).lastUsedAt !== null);
    const row = await patRow();
    expect(row!.lastUsedAt).toBeInstanceOf(Date);
    expect(Date.now() - row!.lastUsedAt!.getTime()).toBeLessThan(60_000);
  });

  it('records a call whatever its method holds (quotes, a NUL, a lone surrogate), and the rest of its batch', async () => {
    const db = await getDb();
    const odd = 'tools/"odd"\\\u0000\ud800,{x}';
    const post = (method: string) =>
      fetch(`${hub.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${pat.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method }),
      }).then((res) => res.arrayBuffer());
    await Promise.all([post(odd), post('batch-neighbour')]);
    const recorded = async () =>
      (await db.select().from(mcpCalls).where(eq(mcpCalls.tokenId, pat.id)))
        .map((c) => c.method)
        .filter((m) => m === 'batch-neighbour' || m?.startsWith('tools/"odd"'));
    await waitFor(async () => (await recorded()).length === 2);
    // PostgreSQL's text holds neither a NUL nor half a surrogate pair: dropped and replaced, the rest kept as sent.
    expect((await recorded()).sort()).toEqual(['batch-neighbour', 'tools/"odd"\\\ufffd,{x}']);
  });

  it('opens the instance’s SSE stream on GET at once, passing the session headers through', async () => {
    const init = await rawInitialize(hub.url, `Bearer ${pat.token}`);
    const sessionId = init.headers.get('mcp-session-id');
    expect(sessionId).toBeTruthy();
    const controller = new AbortController();
    const started = Date.now();
    const res = await fetch(`${hub.url}/mcp`, {
      headers: sessionHeaders(pat.token, sessionId!, 'text/event-stream'),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(res.headers.get('cache-control')).toMatch(/no-transform/);
    expect(Date.now() - started).toBeLessThan(2_000);
    const get = upstream.requests.findLast((r) => r.method === 'GET');
    expect(get).toMatchObject({ sessionId, instance: key.id });
    controller.abort();
    await waitFor(() => upstream.open() === 0);
  });

  it('updates last_used_at at most once a minute per token', async () => {
    const db = await getDb();
    const [before] = await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, pat.id));
    expect(before!.lastUsedAt).toBeInstanceOf(Date);
    expect((await rawInitialize(hub.url, `Bearer ${pat.token}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    const [after] = await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, pat.id));
    expect(after!.lastUsedAt!.getTime()).toBe(before!.lastUsedAt!.getTime());
  });

  it('closes the instance’s streams when the client goes away (no leaked sockets)', async () => {
    const { client, ready } = connect(pat.token);
    await ready;
    // The SDK client opens a standalone GET SSE stream after initialization.
    await waitFor(() => upstream.requests.some((r) => r.method === 'GET') && upstream.open() > 0);
    await client.close();
    await waitFor(() => upstream.open() === 0);
    expect(upstream.open()).toBe(0);
  });
});

describe('upstream failures', () => {
  async function withInstance(setup: (keyId: string) => Promise<string>) {
    const k = await createKey(org.id, 'failing');
    await registerMcpUrl(k, await setup(k.id));
    return mintToken(alice.token, k.id);
  }

  it('answers 503 with a clear JSON-RPC error when the instance has not registered its MCP URL', async () => {
    const k = await createKey(org.id, 'unregistered');
    const t = await mintToken(alice.token, k.id);
    const res = await rawInitialize(hub.url, `Bearer ${t.token}`);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32010 } });
    expect(res.body.error.message).toMatch(/has not registered its MCP URL/);
    // The SDK client surfaces the message to the user.
    const { ready } = connect(t.token);
    await expect(ready).rejects.toThrow(/has not registered its MCP URL/);
  });

  it('answers 502 quickly when the instance is down', async () => {
    const t = await withInstance(async () => {
      const s = createServer();
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
      const port = (s.address() as AddressInfo).port;
      await new Promise<void>((r) => s.close(() => r()));
      return `http://127.0.0.1:${port}/mcp`;
    });
    const started = Date.now();
    const res = await rawInitialize(hub.url, `Bearer ${t.token}`);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32011 } });
    expect(res.body.error.message).toMatch(/unreachable/);
    expect(res.body.error.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('answers 502 when the instance fails with a 5xx, and 504 when it does not answer in time', async () => {
    let silent: Server | undefined;
    const broken = createServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom'));
    await new Promise<void>((r) => broken.listen(0, '127.0.0.1', () => r()));
    try {
      const t5 = await withInstance(async () => `http://127.0.0.1:${(broken.address() as AddressInfo).port}/mcp`);
      const res5 = await rawInitialize(hub.url, `Bearer ${t5.token}`);
      expect(res5.status).toBe(502);
      expect(res5.body.error.message).toMatch(/HTTP 500/);
      expect(res5.text).not.toContain('boom');

      // An instance that refuses the Hub's assertion: the client's token is fine, so no 401 for the client.
      // (This instance reports another instance's URL, which verifies aud against its own id and answers 401.)
      const t401 = await withInstance(async () => upstream.mcpUrl(key.id));
      const res401 = await rawInitialize(hub.url, `Bearer ${t401.token}`);
      expect(res401.status).toBe(502);
      expect(res401.headers.get('www-authenticate')).toBeNull();
      expect(res401.body.error.message).toMatch(/refused the Hub.s assertion/);

      silent = createServer(() => {
        /* accepts and never answers */
      });
      await new Promise<void>((r) => silent!.listen(0, '127.0.0.1', () => r()));
      const tTimeout = await withInstance(
        async () => `http://127.0.0.1:${(silent!.address() as AddressInfo).port}/mcp`,
      );
      process.env.HUB_MCP_RESPONSE_TIMEOUT_MS = '400';
      reloadConfig();
      const started = Date.now();
      const res = await rawInitialize(hub.url, `Bearer ${tTimeout.token}`);
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32012 } });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      delete process.env.HUB_MCP_RESPONSE_TIMEOUT_MS;
      reloadConfig();
      broken.closeAllConnections();
      broken.close();
      silent?.closeAllConnections();
      silent?.close();
    }
  });

  it('refuses loopback, private, link-local and metadata upstreams unless HUB_ALLOW_PRIVATE_UPSTREAMS=true', async () => {
    const before = upstream.requests.length;
    delete process.env.HUB_ALLOW_PRIVATE_UPSTREAMS;
    reloadConfig();
    try {
      // An IP literal, and a name that resolves to loopback.
      const viaIp = await rawInitialize(hub.url, `Bearer ${pat.token}`);
      expect(viaIp.status).toBe(502);
      // The refusal says why, not where: neither the host nor what it resolves to (that goes to the log).
      expect(viaIp.body.error.message).toMatch(/private.*HUB_ALLOW_PRIVATE_UPSTREAMS/);
      expect(viaIp.body.error.message).not.toMatch(/127\.0\.0\.1/);

      const byName = await withInstance(async (id) => upstream.mcpUrl(id).replace('127.0.0.1', 'localhost'));
      const viaName = await rawInitialize(hub.url, `Bearer ${byName.token}`);
      expect(viaName.status).toBe(502);
      expect(viaName.body.error.message).toMatch(/private.*HUB_ALLOW_PRIVATE_UPSTREAMS/);
      expect(viaName.body.error.message).not.toMatch(/localhost|127\.0\.0\.1|::1/);
      expect(upstream.requests.length).toBe(before);
    } finally {
      process.env.HUB_ALLOW_PRIVATE_UPSTREAMS = 'true';
      reloadConfig();
    }
    const allowed = await rawInitialize(hub.url, `Bearer ${pat.token}`);
    expect(allowed.status).toBe(200);

    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect([a, isPrivateAddress(a)]).toEqual([a, true]);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect([a, isPrivateAddress(a)]).toEqual([a, false]);
    }
  });
});
