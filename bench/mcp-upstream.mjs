/**
 * The bench's stand-in for a Core instance's MCP endpoint: the MCP SDK's McpServer over the Streamable
 * HTTP transport (stateful sessions, JSON responses), verifying the Hub's assertion on every request with
 * jose against the Hub's public keys, like an instance would. The bench calls it directly and through
 * the Hub's /mcp proxy with the same requests, so the difference is what the proxy adds.
 *
 * Environment: PORT, MCP_JWKS (the Hub's JWKS as JSON), MCP_ISSUER (HUB_URL), MCP_AUDIENCE (instance key id).
 */
import { randomUUID } from 'node:crypto';
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const jwks = createLocalJWKSet(JSON.parse(process.env.MCP_JWKS ?? '{"keys":[]}'));
const issuer = process.env.MCP_ISSUER;
const audience = process.env.MCP_AUDIENCE;
const transports = new Map();

function newServer() {
  const server = new McpServer({ name: 'bench-instance', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its input', inputSchema: { text: z.string() } },
    async ({ text }) => ({
      content: [{ type: 'text', text: `echo: ${text}` }],
    }),
  );
  return server;
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const httpServer = http.createServer(async (req, res) => {
  try {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    let claims;
    try {
      if (!token) throw new Error('no bearer');
      ({ payload: claims } = await jwtVerify(token, jwks, { issuer, audience, algorithms: ['ES256'] }));
    } catch {
      return reply(res, 401, { error: 'bad assertion' });
    }
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    req.auth = { token, clientId: 'hub', scopes: [], extra: { claims } };
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || req.method !== 'POST' || !isInitializeRequest(body)) {
        return reply(res, sessionId ? 404 : 400, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: sessionId ? 'Session not found' : 'No session' },
        });
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) transports.delete(created.sessionId);
      };
      await newServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  } catch (err) {
    if (!res.headersSent) reply(res, 500, { error: String(err) });
    else res.end();
  }
});
httpServer.keepAliveTimeout = 65_000;
httpServer.listen(Number(process.env.PORT), '127.0.0.1', () =>
  console.log(`[mcp-upstream] listening on ${process.env.PORT}`),
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
