/**
 * Issue 37: "Refused by instance" on the Hub's overview counted calls Core never refused. An MCP client (the SDK's
 * StreamableHTTPClientTransport) opens its optional SSE stream with a GET once per connection; a stateless instance
 * such as Core answers 405 ("no stream here"), which the protocol expects and the client takes in its stride. The
 * Hub counted each such GET as a call the instance refused. A real client through the Hub to a stateless instance:
 * the probe reaches the instance, and neither the call records nor the daily counts hold it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { getDb } from '../../server/db/client';
import { instanceUsageDaily, mcpCalls } from '../../server/db/schema';
import { flushMcpCalls } from '../../server/domain/mcpCalls';
import { createKey, createOrg, createUser } from '../helpers';
import { mintToken, registerMcpUrl, startHub, type RunningServer } from '../mcp-harness';

process.env.HUB_ALLOW_PRIVATE_UPSTREAMS = 'true';

let hub: RunningServer;
let instance: http.Server;
const seen: string[] = [];

/** A stateless MCP server like Core's /mcp: POST only (405 otherwise), a fresh server per request, JSON answers. */
function statelessInstance() {
  return http.createServer((req, res) => {
    seen.push(req.method ?? '');
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { code: 'METHOD_NOT_SUPPORTED', message: 'POST only' } }));
    }
    const server = new McpServer({ name: 'stateless', version: '1.0.0' });
    server.registerTool('fails', { description: 'answers a tool error' }, async () => ({
      content: [{ type: 'text', text: 'no such secret' }],
      isError: true,
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void server.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
}

beforeAll(async () => {
  hub = await startHub();
  instance = statelessInstance();
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  instance?.closeAllConnections();
  await new Promise((resolve) => instance?.close(resolve));
  await hub?.close();
});

it("does not count a client's stream probe answered 405 as a call the instance refused", async () => {
  const alice = await createUser({ email: 'probe@example.test', name: 'Probe' });
  const org = await createOrg({ admin: alice });
  const key = await createKey(org.id, 'core-stateless');
  await registerMcpUrl(key, `http://127.0.0.1:${(instance.address() as AddressInfo).port}/mcp`);
  const pat = await mintToken(alice.token, key.id, { name: 'assistant' });

  const before = Date.now();
  for (let connection = 0; connection < 2; connection++) {
    const client = new Client({ name: 'assistant', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${pat.token}` } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['fails']);
    // A tool error is an answer (HTTP 200): the Hub counts it answered; the instance's own overview counts it failed.
    expect(await client.callTool({ name: 'fails', arguments: {} })).toMatchObject({ isError: true });
    await client.close();
  }
  // The probes reached the instance and were answered 405 (the test would count them otherwise).
  expect(seen.filter((m) => m === 'GET').length).toBeGreaterThanOrEqual(2);

  await flushMcpCalls();
  const db = await getDb();
  const calls = await db.select().from(mcpCalls).where(eq(mcpCalls.tokenId, pat.id));
  expect(calls.map((c) => c.upstreamStatus).filter((s) => s !== 200 && s !== 202)).toEqual([]);
  expect(calls.filter((c) => c.method === 'tools/call')).toHaveLength(2);
  // Stored as the moment each call was recorded (queued as epoch milliseconds), and counted on that UTC day.
  const after = Date.now();
  for (const { createdAt } of calls) expect(createdAt.getTime()).toSatisfy((t: number) => t >= before && t <= after);
  const [usage] = await db
    .select()
    .from(instanceUsageDaily)
    .where(and(eq(instanceUsageDaily.instanceKeyId, key.id), eq(instanceUsageDaily.orgId, org.id)));
  expect(usage).toMatchObject({ mcpRefusedInstance: 0, mcpUpstreamError: 0, mcpRefusedHub: 0 });
  expect(usage!.mcpOk).toBe(calls.length);
  expect([before, after].map((t) => new Date(t).toISOString().slice(0, 10))).toContain(usage!.day);
});
