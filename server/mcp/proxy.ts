/**
 * The MCP proxy behind /mcp (MCP Streamable HTTP transport). An AI client sends
 * `Authorization: Bearer svp_…`; the Hub checks the personal access token on every call (resolvePat),
 * then forwards POST, GET (SSE) and DELETE to the MCP URL the token's instance reported, streaming both
 * ways without buffering. The client's token never leaves the Hub: the instance receives
 * `Authorization: Bearer <assertion>`, a 60-second Hub JWT (verifiable with /.well-known/jwks.json) with
 *   iss = HUB_URL, aud = instance (key) id, sub = user id, email, name, org_id, token_id, instance_id.
 *
 * Answers of the Hub itself (nothing is forwarded):
 *   401 (WWW-Authenticate: Bearer realm="hub", error="invalid_token") no/garbage/unknown/expired/revoked
 *       token, instance key, JWT, minter no longer a member, instance revoked — body {code, reason, message};
 *   403 (error="insufficient_scope") the organization is suspended;
 *   503 JSON-RPC error -32010: the instance has not registered its MCP URL;
 *   502 JSON-RPC error -32011 (instance unreachable, refused address, or it answered 5xx/3xx/401),
 *   504 JSON-RPC error -32012 (no connection or no response headers in time);
 *   429 JSON-RPC error -32013 + Retry-After: the token already has HUB_MCP_MAX_STREAMS_PER_TOKEN calls and streams open.
 *
 * Limits per personal access token (what a stalled or greedy instance or client can hold on the Hub):
 *   - open calls and streams at once (HUB_MCP_MAX_STREAMS_PER_TOKEN, per process): a call counts from the moment
 *     it is forwarded until its response has ended or was cut; over the limit → 429 before anything is forwarded;
 *   - bytes per response (HUB_MCP_MAX_RESPONSE_BYTES): a larger Content-Length → 502 -32013 before relaying;
 *     a streamed response that grows past it is cut (see below);
 *   - idle time (HUB_MCP_IDLE_TIMEOUT_MS): a started response that relays nothing for that long is closed, and its
 *     connection to the instance with it.
 * A response cut for bytes or idleness: an SSE answer to a POST ends with a JSON-RPC error event for the call's id
 * (-32013, so the client's pending call fails with the reason instead of hanging), a GET stream simply ends (the
 * client reconnects), any other body (or the answer to a POST whose id the Hub did not read) is aborted.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { config } from '../config';
import { signJwt } from '../domain/jwt';
import { errorResponse } from '../api/errors';
import { admit, RateLimitRefusal, rateLimitHeaders } from '../api/rateLimit';
import { sourceAddress } from '../domain/support/addresses';
import { resolvePat } from '../auth/credentials';
import { DomainError } from '../domain/errors';
import { logger, noteCaller, requestLogger } from '../log';
import { recordMcpCall, type ResolvedPat } from '../domain/pats';
import { checkLiteralHost, UpstreamBlockedError, upstreamAgents } from './outbound';

/** Request headers passed to the instance (everything else, the client's Authorization first, stays here). */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];
/** Response headers passed back to the client. */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'retry-after', 'allow'];
/** POST bodies up to this size are read first so that the JSON-RPC method can be recorded; larger ones stream through unread. */
const INSPECT_MAX_BYTES = 64 * 1024;
const ASSERTION_TTL_SECONDS = 60;
/** A cached assertion is reused while it has at least this long to live. */
const ASSERTION_MIN_REMAINING_MS = 30_000;

export const RPC_NOT_REGISTERED = -32010;
export const RPC_UPSTREAM_FAILED = -32011;
export const RPC_UPSTREAM_TIMEOUT = -32012;
export const RPC_LIMIT_EXCEEDED = -32013;

type RpcId = string | number | null;

// ---------------------------------------------------------------- Hub answers

function headerSafe(text: string) {
  return text.replace(/…/g, '...').replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
}

/** A refused credential: the error model's answer, with the challenge MCP clients read. */
function refusalResponse(refusal: DomainError): Response {
  if (refusal instanceof RateLimitRefusal) return errorResponse(refusal, '/mcp', () => rateLimitHeaders(refusal.status));
  return errorResponse(refusal, '/mcp', (e) => ({
    'www-authenticate': `Bearer realm="hub", error="${e.status === 401 ? 'invalid_token' : 'insufficient_scope'}", error_description="${headerSafe(e.message)}"`,
  }));
}

function rpcErrorResponse(status: number, code: number, message: string, id: RpcId, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', id, error: { code, message } }, { status, headers: { 'cache-control': 'no-store', ...headers } });
}

// ---------------------------------------------------------------- limits per token

/** Calls and streams open per token in this process. */
const openPerToken = new Map<string, number>();

/** Takes one of the token's slots; returns its release (idempotent), or null when the token has none left. */
function takeSlot(tokenId: string): (() => void) | null {
  const open = openPerToken.get(tokenId) ?? 0;
  if (open >= config.mcpMaxStreamsPerToken) return null;
  openPerToken.set(tokenId, open + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (openPerToken.get(tokenId) ?? 1) - 1;
    if (left <= 0) openPerToken.delete(tokenId);
    else openPerToken.set(tokenId, left);
  };
}

/** Open calls and streams of a token in this process (tests, diagnostics). */
export function openMcpCalls(tokenId: string): number {
  return openPerToken.get(tokenId) ?? 0;
}

// ---------------------------------------------------------------- request inspection

function bearerToken(headers: Headers): string | null {
  const authorization = headers.get('authorization');
  if (authorization === null) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1]! : 'invalid';
}

/** The JSON-RPC method(s) and id of a small POST body; nulls when it is not JSON-RPC. */
/** The JSON-RPC method(s) and id of a body the Hub read, or null when it is not JSON at all. */
function inspectRpc(body: Uint8Array): { method: string | null; id: RpcId } | null {
  try {
    const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as unknown;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const methods = messages
      .map((m) => (m && typeof m === 'object' && typeof (m as { method?: unknown }).method === 'string' ? (m as { method: string }).method : null))
      .filter((m): m is string => m !== null);
    const first = messages[0] as { id?: unknown } | undefined;
    const id = !Array.isArray(parsed) && first && (typeof first.id === 'string' || typeof first.id === 'number') ? first.id : null;
    return { method: methods.length > 0 ? methods.join(',') : null, id };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- upstream

interface Target {
  url: URL;
  error: string | null;
}

/** Parsed instance MCP URLs (reported rarely, read on every call). */
const targets = new Map<string, Target>();

function targetOf(mcpUrl: string): Target {
  let target = targets.get(mcpUrl);
  if (!target) {
    let url: URL;
    let error: string | null = null;
    try {
      url = new URL(mcpUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') error = `The instance's MCP URL must be http or https, not ${url.protocol}`;
    } catch {
      url = new URL('http://invalid.invalid/');
      error = 'The instance reported an MCP URL that is not a valid URL';
    }
    target = { url, error };
    if (targets.size > 10_000) targets.clear();
    targets.set(mcpUrl, target);
  }
  return target;
}

const assertions = new Map<string, { jwt: string; key: string; expiresAtMs: number }>();

/** The Hub's assertion for this user at this instance; reused while it has 30 s or more to live. */
async function assertionFor(pat: ResolvedPat): Promise<string> {
  const key = `${pat.userId}\n${pat.email}\n${pat.name}\n${pat.orgId}\n${pat.instanceKeyId}`;
  const cached = assertions.get(pat.tokenId);
  const now = Date.now();
  if (cached && cached.key === key && cached.expiresAtMs - now >= ASSERTION_MIN_REMAINING_MS) return cached.jwt;
  const jwt = await signJwt({
    subject: pat.userId,
    audience: pat.instanceKeyId,
    ttlSeconds: ASSERTION_TTL_SECONDS,
    claims: { email: pat.email, name: pat.name, org_id: pat.orgId, token_id: pat.tokenId, instance_id: pat.instanceKeyId },
  });
  if (assertions.size > 10_000) assertions.clear();
  assertions.set(pat.tokenId, { jwt, key, expiresAtMs: now + ASSERTION_TTL_SECONDS * 1000 });
  return jwt;
}

class UpstreamTimeout extends Error {}

interface Forwarded {
  /** What the client gets. */
  response: Response;
  /** The instance's HTTP status, null when it was not reached. */
  upstreamStatus: number | null;
}

interface StreamLimits {
  maxBytes: number;
  idleMs: number;
  /** The JSON-RPC id of the call this answers (null: a GET stream, a batch, an unread body). */
  rpcId: RpcId;
  sse: boolean;
  /** A GET stream (server-to-client messages) rather than the answer to a POST. */
  isGet: boolean;
}

const encoder = new TextEncoder();

/**
 * A web stream over the instance's response that pauses the socket when the client reads slowly, and cuts
 * the response when it grows past the byte limit or relays nothing for the idle time (see the file comment).
 */
function webStream(res: IncomingMessage, limits: StreamLimits, onEnd: () => void): ReadableStream<Uint8Array> {
  let finished = false;
  let relayed = 0;
  let idle: NodeJS.Timeout | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const cut = (why: string) => {
          if (finished) return;
          finished = true;
          clearTimeout(idle);
          onEnd();
          res.destroy();
          logger.warn({ rpcId: limits.rpcId, relayedBytes: relayed }, `MCP response cut: ${why}`);
          if (limits.sse && limits.isGet) return controller.close(); // the client reconnects
          if (limits.sse && limits.rpcId !== null) {
            // End any partial event, then fail the pending call with the reason.
            const event = JSON.stringify({ jsonrpc: '2.0', id: limits.rpcId, error: { code: RPC_LIMIT_EXCEEDED, message: why } });
            controller.enqueue(encoder.encode(`\n\nevent: message\ndata: ${event}\n\n`));
            return controller.close();
          }
          controller.error(new Error(why)); // the client sees the answer aborted
        };
        idle = setTimeout(
          () => cut(`The instance sent nothing for ${limits.idleMs} ms; the Hub closed the response (HUB_MCP_IDLE_TIMEOUT_MS)`),
          limits.idleMs,
        );
        res.on('data', (chunk: Buffer) => {
          if (finished) return;
          relayed += chunk.byteLength;
          if (relayed > limits.maxBytes) {
            return cut(`The instance's response exceeded ${limits.maxBytes} bytes; the Hub cut it (HUB_MCP_MAX_RESPONSE_BYTES)`);
          }
          idle!.refresh();
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) res.pause();
        });
        res.once('end', () => {
          if (finished) return;
          finished = true;
          clearTimeout(idle);
          onEnd();
          controller.close();
        });
        res.once('close', () => {
          if (finished) return;
          finished = true;
          clearTimeout(idle);
          onEnd();
          controller.error(new Error('The instance closed the MCP stream'));
        });
      },
      pull() {
        res.resume();
      },
      cancel() {
        // The client went away: close the instance's stream too (no leaked sockets).
        finished = true;
        clearTimeout(idle);
        onEnd();
        res.destroy();
      },
    },
    { highWaterMark: 16 },
  );
}

/** Forwards one call; `release` runs once when it is over (failed, answered without a body, or its body ended or was cut). */
function forward(
  req: Request,
  target: URL,
  assertion: string,
  body: Uint8Array | ReadableStream<Uint8Array> | null,
  rpcId: RpcId,
  release: () => void,
): Promise<Forwarded> {
  return new Promise<Forwarded>((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${assertion}`, 'accept-encoding': 'identity' };
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = req.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    if (body instanceof Uint8Array) headers['content-length'] = String(body.byteLength);

    const protocol = target.protocol as 'http:' | 'https:';
    const upstream = (protocol === 'https:' ? https : http).request({
      protocol,
      hostname: target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname,
      port: target.port || undefined,
      path: target.pathname + target.search,
      method: req.method,
      headers,
      agent: upstreamAgents[protocol],
    });

    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const clearTimers = () => timers.forEach(clearTimeout);
    const onClientAbort = () => upstream.destroy(new Error('client disconnected'));
    const detach = () => {
      req.signal.removeEventListener('abort', onClientAbort);
      release();
    };

    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimers();
      detach();
      upstream.destroy();
      if (err instanceof UpstreamTimeout) {
        resolve({ response: rpcErrorResponse(504, RPC_UPSTREAM_TIMEOUT, err.message, rpcId), upstreamStatus: null });
      } else if (err instanceof UpstreamBlockedError) {
        requestLogger().warn({ upstream: err.host, address: err.address }, 'MCP upstream refused: private address');
        resolve({ response: rpcErrorResponse(502, RPC_UPSTREAM_FAILED, err.message, rpcId), upstreamStatus: null });
      } else {
        // Which error (refused, reset, no such name) stays in the log: it would tell the caller which hosts answer.
        requestLogger().warn({ upstream: target.host, code: (err as NodeJS.ErrnoException).code }, 'MCP upstream unreachable');
        resolve({ response: rpcErrorResponse(502, RPC_UPSTREAM_FAILED, "The instance's MCP endpoint is unreachable", rpcId), upstreamStatus: null });
      }
    };

    timers.push(
      setTimeout(() => fail(new UpstreamTimeout(`The instance did not answer within ${config.mcpResponseTimeoutMs} ms`)), config.mcpResponseTimeoutMs),
    );
    upstream.once('socket', (socket) => {
      if (!socket.connecting) return; // a kept-alive connection
      const timer = setTimeout(
        () => fail(new UpstreamTimeout(`Could not connect to the instance within ${config.mcpConnectTimeoutMs} ms`)),
        config.mcpConnectTimeoutMs,
      );
      timers.push(timer);
      socket.once('connect', () => clearTimeout(timer));
    });
    upstream.on('error', fail);
    if (req.signal.aborted) return onClientAbort();
    req.signal.addEventListener('abort', onClientAbort, { once: true });

    upstream.once('response', (res) => {
      if (settled) return void res.destroy();
      settled = true;
      clearTimers();
      const status = res.statusCode ?? 502;
      // Errors of the instance become the Hub's 502; a redirect is not followed (it could point anywhere),
      // and a 401 means the instance refused the Hub's assertion, not the client's token.
      if (status >= 500 || (status >= 300 && status < 400) || status === 401) {
        detach();
        res.destroy();
        const what = status === 401 ? 'refused the Hub’s assertion (HTTP 401)' : status < 400 ? `answered with a redirect (HTTP ${status})` : `failed (HTTP ${status})`;
        resolve({ response: rpcErrorResponse(502, RPC_UPSTREAM_FAILED, `The instance's MCP endpoint ${what}`, rpcId), upstreamStatus: status });
        return;
      }
      const maxBytes = config.mcpMaxResponseBytes;
      if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
        detach();
        res.destroy();
        const message = `The instance's response (${res.headers['content-length']} bytes) exceeds the Hub's limit of ${maxBytes} bytes (HUB_MCP_MAX_RESPONSE_BYTES)`;
        resolve({ response: rpcErrorResponse(502, RPC_LIMIT_EXCEEDED, message, rpcId), upstreamStatus: status });
        return;
      }
      const out = new Headers({ 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
      for (const name of FORWARDED_RESPONSE_HEADERS) {
        const value = res.headers[name];
        if (typeof value === 'string') out.set(name, value);
      }
      if (status === 204 || status === 205 || status === 304) {
        detach();
        res.resume();
        resolve({ response: new Response(null, { status, headers: out }), upstreamStatus: status });
        return;
      }
      const limits: StreamLimits = { maxBytes, idleMs: config.mcpIdleTimeoutMs, rpcId,
        sse: (res.headers['content-type'] ?? '').startsWith('text/event-stream'),
        isGet: req.method === 'GET',
      };
      resolve({ response: new Response(webStream(res, limits, detach), { status, headers: out }), upstreamStatus: status });
    });

    if (body instanceof Uint8Array) upstream.end(body);
    else if (body) {
      const source = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
      source.on('error', (err) => upstream.destroy(err));
      source.pipe(upstream);
    } else upstream.end();
  });
}

// ---------------------------------------------------------------- entry point

/** The /mcp handler (POST, GET and DELETE). Unexpected failures (e.g. the database is down) answer 500 without details. */
export async function handleMcp(req: Request): Promise<Response> {
  try {
    return await proxy(req);
  } catch (err) {
    console.error('[hub] /mcp failed:', err);
    return rpcErrorResponse(500, -32603, 'Internal error in the Hub', null);
  }
}

/**
 * Where a forwarded call's time went (token check, body read, assertion, instance until its headers), as a
 * Server-Timing header: the benchmark reports it, and so can a browser's or a client's developer tools.
 */
function serverTiming(response: Response, marks: [string, number][]) {
  const parts = marks.slice(1).map(([name, at], i) => `${name};dur=${(at - marks[i]![1]).toFixed(2)}`);
  response.headers.set('server-timing', parts.join(', '));
  return response;
}

async function proxy(req: Request): Promise<Response> {
  const marks: [string, number][] = [['start', performance.now()]];
  let pat: ResolvedPat;
  try {
    const token = bearerToken(req.headers);
    const address = sourceAddress(req.headers)?.ip ?? 'unknown';
    ({ caller: pat } = await admit(address, token !== null, () => resolvePat(token), (p) => `svp:${p.tokenId}`));
    noteCaller({ kind: 'pat', id: pat.tokenId });
  } catch (err) {
    if (err instanceof DomainError) return refusalResponse(err);
    throw err;
  }
  marks.push(['pat', performance.now()]);

  let body: Uint8Array | ReadableStream<Uint8Array> | null = null;
  let method: string | null = null;
  let rpcId: RpcId = null;
  if (req.method === 'POST' && req.body) {
    const length = Number(req.headers.get('content-length') ?? NaN);
    if (Number.isFinite(length) && length <= INSPECT_MAX_BYTES) {
      body = new Uint8Array(await req.arrayBuffer());
      const rpc = inspectRpc(body);
      // Not JSON: JSON-RPC's parse error, from the Hub (an instance may well fail on it with a 5xx).
      if (!rpc) return rpcErrorResponse(400, -32700, 'Parse error: the request body is not valid JSON', null);
      ({ method, id: rpcId } = rpc);
    } else {
      body = req.body;
    }
  }

  const record = (upstreamStatus: number | null) => void recordMcpCall({ pat, method, upstreamStatus });

  if (!pat.mcpUrl) {
    record(null);
    return rpcErrorResponse(
      503,
      RPC_NOT_REGISTERED,
      'The instance this token is bound to has not registered its MCP URL with the Hub yet (the instance reports it with PUT /api/v1/instance-info {mcp_url}). Connect the instance to the Hub, or ask its administrator to.',
      rpcId,
    );
  }
  const target = targetOf(pat.mcpUrl);
  if (target.error) {
    record(null);
    return rpcErrorResponse(502, RPC_UPSTREAM_FAILED, target.error, rpcId);
  }
  const blocked = checkLiteralHost(target.url.hostname);
  if (blocked) {
    requestLogger().warn({ upstream: blocked.host }, 'MCP upstream refused: private address');
    record(null);
    return rpcErrorResponse(502, RPC_UPSTREAM_FAILED, blocked.message, rpcId);
  }

  const release = takeSlot(pat.tokenId);
  if (!release) {
    // Not forwarded, not recorded: a client over its limit costs no write.
    const max = config.mcpMaxStreamsPerToken;
    if (body instanceof ReadableStream) void body.cancel().catch(() => {});
    return rpcErrorResponse(
      429,
      RPC_LIMIT_EXCEEDED,
      `Too many open MCP calls and streams with this token (${max} at once, HUB_MCP_MAX_STREAMS_PER_TOKEN); retry when one has finished`,
      rpcId,
      { 'retry-after': '1' },
    );
  }
  marks.push(['body', performance.now()]);
  let assertion: string;
  try {
    assertion = await assertionFor(pat);
  } catch (err) {
    release();
    throw err;
  }
  marks.push(['assertion', performance.now()]);
  const { response, upstreamStatus } = await forward(req, target.url, assertion, body, rpcId, release);
  marks.push(['upstream', performance.now()]);
  record(upstreamStatus);
  return serverTiming(response, marks);
}
