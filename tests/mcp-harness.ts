/**
 * Real servers for the MCP proxy tests (no mocks of our code):
 *  - startHub(): a loopback node:http server that serves /mcp with the production handler on Node's own
 *    request and response (server/http/mcp/proxy.ts serveMcp, as the edge does) and the JWKS of
 *    app/.well-known/jwks.json/route.ts.
 *  - startUpstream(): a real MCP server (the SDK's McpServer + StreamableHTTPServerTransport, stateful
 *    sessions) that verifies the Hub's assertion with jose against the Hub's JWKS, and records every
 *    request it gets.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { serveMcp } from '../server/http/mcp/proxy';
import * as jwksRoute from '../app/.well-known/jwks.json/route';
import { api } from './helpers';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

// ---------------------------------------------------------------- the Hub

export async function startHub(): Promise<RunningServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path === '/mcp') return serveMcp(req, res);
    if (path === '/.well-known/jwks.json' && req.method === 'GET') {
      return void jwksRoute.GET().then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(await answer.text());
      });
    }
    res.writeHead(404).end();
  });
  const base = await listen(server);
  return { url: base, close: () => closeServer(server) };
}

// ---------------------------------------------------------------- the upstream instance

export interface UpstreamRequest {
  method: string;
  /** The instance id in the URL path. */
  instance: string;
  sessionId: string | null;
  authorization: string | null;
  /** The verified assertion's claims; null when it did not verify. */
  claims: JWTPayload | null;
  rpcMethod: string | null;
}

export interface Upstream extends RunningServer {
  /** The MCP URL of one instance served by this server. */
  mcpUrl(instanceId: string): string;
  requests: UpstreamRequest[];
  /** Requests whose response has not finished or closed yet. */
  open(): number;
  /** Resolved by the test when the client has seen the progress notification. */
  progressSeen: { resolve: () => void; promise: Promise<void> } | null;
}

/**
 * One server standing for any number of instances: an instance's MCP URL is {url}/{instance id}/mcp, and the
 * assertion must name that instance as its audience.
 */
export async function startUpstream(opts: { hubUrl: string; issuer?: string }): Promise<Upstream> {
  const jwks = createRemoteJWKSet(new URL(`${opts.hubUrl}/.well-known/jwks.json`));
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let open = 0;

  const upstream: Upstream = {
    url: '',
    mcpUrl: (instanceId) => `${upstream.url}/${instanceId}/mcp`,
    requests: [],
    open: () => open,
    progressSeen: null,
    close: async () => {
      for (const t of transports.values()) await t.close().catch(() => {});
      await closeServer(server);
    },
  };

  function newServer() {
    const server = new McpServer({ name: 'test-instance', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Who the instance thinks is calling' }, async (extra) => ({
      content: [{ type: 'text', text: JSON.stringify(extra.authInfo?.extra?.claims ?? null) }],
    }));
    server.registerTool(
      'echo',
      { description: 'Echoes its input', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    );
    server.registerTool(
      'sleep',
      { description: 'Sends nothing for `ms` milliseconds, then answers', inputSchema: { ms: z.number() } },
      async ({ ms }) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
      },
    );
    server.registerTool(
      'ticks',
      {
        description: 'Sends `count` progress notifications `everyMs` apart, then answers',
        inputSchema: { count: z.number(), everyMs: z.number() },
      },
      async ({ count, everyMs }, extra) => {
        const progressToken = extra._meta?.progressToken;
        for (let i = 1; i <= count; i++) {
          await new Promise((resolve) => setTimeout(resolve, everyMs));
          if (progressToken !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: i, total: count },
            });
          }
        }
        return { content: [{ type: 'text', text: `ticked ${count}` }] };
      },
    );
    server.registerTool(
      'slow-progress',
      { description: 'Reports progress, then waits until the client saw it' },
      async (extra) => {
        const progressToken = extra._meta?.progressToken;
        if (progressToken === undefined)
          return { content: [{ type: 'text', text: 'no progress token' }], isError: true };
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: 1, total: 2, message: 'halfway' },
        });
        // If the Hub buffered the response, the client could not see the progress before this result:
        // the wait times out and the tool says so.
        const seen = upstream.progressSeen?.promise ?? Promise.reject(new Error('no latch'));
        const outcome = await Promise.race([
          seen.then(() => 'streamed'),
          new Promise<string>((resolve) =>
            setTimeout(() => resolve('buffered: the client did not see the progress in time'), 5_000),
          ),
        ]).catch(() => 'no latch');
        return { content: [{ type: 'text', text: outcome }] };
      },
    );
    return server;
  }

  async function readBody(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? JSON.parse(text) : undefined;
  }

  const server = http.createServer(async (req, res) => {
    open++;
    res.on('close', () => open--);
    const authorization = req.headers.authorization ?? null;
    const sessionId = (req.headers['mcp-session-id'] as string | undefined) ?? null;
    const instance = /^\/([0-9a-f-]{36})\/mcp$/.exec(new URL(req.url ?? '/', 'http://x').pathname)?.[1] ?? '';
    const entry: UpstreamRequest = {
      method: req.method ?? '',
      instance,
      sessionId,
      authorization,
      claims: null,
      rpcMethod: null,
    };
    upstream.requests.push(entry);
    try {
      const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
      try {
        if (!token || !instance) throw new Error('no bearer or no instance');
        entry.claims = (
          await jwtVerify(token, jwks, {
            issuer: opts.issuer ?? 'http://hub.test',
            audience: instance,
            algorithms: ['ES256'],
          })
        ).payload;
      } catch {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'bad assertion' }));
        return;
      }
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      entry.rpcMethod =
        body && typeof body === 'object' && 'method' in body ? String((body as { method: unknown }).method) : null;
      (req as IncomingMessage & { auth?: unknown }).auth = {
        token,
        clientId: 'hub',
        scopes: [],
        extra: { claims: entry.claims },
      };

      let transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId || req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32000, message: sessionId ? 'Session not found' : 'No session' },
            }),
          );
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
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
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  upstream.url = await listen(server);
  return upstream;
}

// ---------------------------------------------------------------- fixtures

/** The instance reports its MCP URL through the support surface, with its own instance key. */
export async function registerMcpUrl(instanceKey: { secret: string }, mcpUrl: string | null) {
  const res = await api('/instance-info', { method: 'PUT', token: instanceKey.secret, body: { mcp_url: mcpUrl } });
  if (res.status !== 200) throw new Error(`instance-info failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Mints a token through the REST API, as a user would. */
export async function mintToken(
  userToken: string,
  instanceId: string,
  extra: { name?: string; expires_in_days?: number } = {},
) {
  const res = await api('/account/tokens', {
    method: 'POST',
    token: userToken,
    body: { name: extra.name ?? 'assistant', instance_id: instanceId, ...extra },
  });
  if (res.status !== 200) throw new Error(`mint failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as { id: string; name: string; token: string; instance_id: string; expires_at: string | null };
}

/** The headers of a raw /mcp request in an open MCP session; `accept` is what the caller takes (a GET stream: SSE). */
export function sessionHeaders(token: string, sessionId: string, accept = 'application/json, text/event-stream') {
  return {
    authorization: `Bearer ${token}`,
    accept,
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-06-18',
  };
}

/** A raw MCP initialize POST to the Hub's /mcp. */
export async function rawInitialize(hubUrl: string, authorization: string | null) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (authorization !== null) headers.authorization = authorization;
  const res = await fetch(`${hubUrl}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* SSE or empty */
  }
  return { status: res.status, headers: res.headers, body, text };
}
