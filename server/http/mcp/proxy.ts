/**
 * The MCP proxy behind /mcp (MCP Streamable HTTP transport), on Node's own request and response (served by the
 * production edge, server/http/edge.ts; no Fetch objects on the way). An AI client sends
 * `Authorization: Bearer svp_…`; the Hub checks the personal access token on every call (resolvePat),
 * then forwards POST, GET (SSE) and DELETE to the MCP URL the token's instance reported, streaming both
 * ways without buffering. The client's token never leaves the Hub: the instance receives
 * `Authorization: Bearer <assertion>`, a 60-second Hub JWT (verifiable with /.well-known/jwks.json) with
 *   iss = HUB_URL, aud = instance (key) id, sub = user id, email, name, org_id, token_id, instance_id, and
 *   destination = the MCP URL it is sent to (exactly the instance's registered mcp_url). An instance accepts it
 *   only when that is its own MCP endpoint, so an assertion sent elsewhere (an mcp_url pointed at another server)
 *   cannot be replayed to the instance (Core: core/src/hub/assertion.ts).
 *
 * Answers of the Hub itself (nothing is forwarded):
 *   401 (WWW-Authenticate: Bearer realm="hub", error="invalid_token") no/garbage/unknown/expired/revoked
 *       token, instance key, JWT, minter no longer a member, instance revoked — body {code, reason, message};
 *   403 (error="insufficient_scope") the organization is suspended;
 *   503 JSON-RPC error -32010: the instance has not registered its MCP URL;
 *   502 JSON-RPC error -32011 (instance unreachable, refused address, or it answered 5xx/3xx/401),
 *   504 JSON-RPC error -32012 (no connection or no response headers in time);
 *   429 JSON-RPC error -32013 + Retry-After: the token already has HUB_MCP_MAX_STREAMS_PER_TOKEN calls and streams
 *       open, or its person HUB_MCP_MAX_STREAMS_PER_USER over all their tokens;
 *   503 SERVICE_UNAVAILABLE + Retry-After (the error model's body, as on REST): the database is unavailable;
 *   405 METHOD_NOT_SUPPORTED + Allow: a method other than GET, POST, DELETE.
 *
 * Limits per personal access token (what a stalled or greedy instance or client can hold on the Hub):
 *   - open calls and streams at once (HUB_MCP_MAX_STREAMS_PER_TOKEN per token, HUB_MCP_MAX_STREAMS_PER_USER per person
 *     over all their tokens, per process): a call counts from the moment it is forwarded until its response has
 *     ended or was cut; over either limit → 429 before anything is forwarded;
 *   - bytes per response (HUB_MCP_MAX_RESPONSE_BYTES): a larger Content-Length → 502 -32013 before relaying;
 *     a streamed response that grows past it is cut (see below);
 *   - idle time (HUB_MCP_IDLE_TIMEOUT_MS): a started response that relays nothing for that long is closed, and its
 *     connection to the instance with it.
 * A response cut for bytes or idleness: an SSE answer to a POST ends with a JSON-RPC error event for the call's id
 * (-32013, so the client's pending call fails with the reason instead of hanging), a GET stream simply ends (the
 * client reconnects), any other body (or the answer to a POST whose id the Hub did not read) is aborted.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { parseBearer } from '@shared/tokens';
import { config } from '../../config';
import { signInstanceAssertion } from '../../domain/jwt';
import { TransportError } from '../../api/errors';
import { admit, RateLimitRefusal, rateLimitHeaders } from '../../api/rateLimit';
import { sourceAddress } from '../../api/clientAddress';
import { resolvePat } from '../../auth/credentials';
import { DomainError } from '../../domain/errors';
import { logger, noteCaller, requestLogger } from '../../log';
import { recordMcpCall, type ResolvedPat } from '../../domain/pats';
import { insecureMcpUrl } from '../../domain/support/instances';
import { nodeHeaders, readNodeBody, writeFailure } from '../nodeHttp';
import { checkLiteralHost, UpstreamBlockedError, upstreamAgents } from './outbound';

/** Request headers passed to the instance (everything else, the client's Authorization first, stays here). */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];
/** Response headers passed back to the client. */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'retry-after', 'allow'];
/** POST bodies up to this size are read first so that the JSON-RPC method can be recorded; larger ones stream through unread. */
const INSPECT_MAX_BYTES = 64 * 1024;
const ASSERTION_TTL_SECONDS = 60;
const MCP_METHODS = new Set(['GET', 'POST', 'DELETE']);

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
function writeRefusal(refusal: DomainError, res: ServerResponse) {
  if (refusal instanceof RateLimitRefusal) {
    return writeFailure(refusal, res, '/mcp', () => rateLimitHeaders(refusal.status));
  }
  writeFailure(refusal, res, '/mcp', (e) => ({
    'www-authenticate': `Bearer realm="hub", error="${e.status === 401 ? 'invalid_token' : 'insufficient_scope'}", error_description="${headerSafe(e.message)}"`,
  }));
}

/** An answer of the proxy itself about the call (not forwarded): a JSON-RPC error for the call's id. */
function writeRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: RpcId,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return void res.end();
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(body);
}

// ---------------------------------------------------------------- limits per token and per person

/** Calls and streams open per token, and per person over all their tokens, in this process. */
const openPerToken = new Map<string, number>();
const openPerUser = new Map<string, number>();

function decrement(map: Map<string, number>, key: string) {
  const left = (map.get(key) ?? 1) - 1;
  if (left <= 0) map.delete(key);
  else map.set(key, left);
}

/**
 * Takes one of the token's slots and one of its person's; returns the release (idempotent), or which limit is
 * reached.
 */
function takeSlot(pat: ResolvedPat): (() => void) | 'token' | 'person' {
  const byToken = openPerToken.get(pat.tokenId) ?? 0;
  if (byToken >= config.mcpMaxStreamsPerToken) return 'token';
  const byUser = openPerUser.get(pat.userId) ?? 0;
  if (byUser >= config.mcpMaxStreamsPerUser) return 'person';
  openPerToken.set(pat.tokenId, byToken + 1);
  openPerUser.set(pat.userId, byUser + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    decrement(openPerToken, pat.tokenId);
    decrement(openPerUser, pat.userId);
  };
}

/** Open calls and streams of a token in this process (tests, diagnostics). */
export function openMcpCalls(tokenId: string): number {
  return openPerToken.get(tokenId) ?? 0;
}

/** Open calls and streams of a person, over all their tokens, in this process (tests, diagnostics). */
export function openMcpCallsOfUser(userId: string): number {
  return openPerUser.get(userId) ?? 0;
}

// ---------------------------------------------------------------- request inspection

function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  return parseBearer(authorization) ?? 'invalid';
}

/** The JSON-RPC method(s) and id of a body the Hub read, or null when it is not JSON at all. */
function inspectRpc(body: Uint8Array): { method: string | null; id: RpcId } | null {
  try {
    const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as unknown;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const methods = messages
      .map((m) =>
        m && typeof m === 'object' && typeof (m as { method?: unknown }).method === 'string'
          ? (m as { method: string }).method
          : null,
      )
      .filter((m): m is string => m !== null);
    const first = messages[0] as { id?: unknown } | undefined;
    const id =
      !Array.isArray(parsed) && first && (typeof first.id === 'string' || typeof first.id === 'number')
        ? first.id
        : null;
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
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        error = `The instance's MCP URL must be http or https, not ${url.protocol}`;
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

/**
 * The Hub's assertion for this user at this instance: a fresh one (its own jti) per request, as Core refuses replays,
 * bound to the URL it is sent to (`destination`).
 */
function assertionFor(pat: ResolvedPat, destination: string): Promise<string> {
  return signInstanceAssertion({
    subject: pat.userId,
    audience: pat.instanceKeyId,
    ttlSeconds: ASSERTION_TTL_SECONDS,
    claims: {
      email: pat.email,
      name: pat.name,
      org_id: pat.orgId,
      token_id: pat.tokenId,
      instance_id: pat.instanceKeyId,
      destination,
    },
  });
}

class UpstreamTimeout extends Error {}

interface StreamLimits {
  maxBytes: number;
  idleMs: number;
  /** The JSON-RPC id of the call this answers (null: a GET stream, a batch, an unread body). */
  rpcId: RpcId;
  sse: boolean;
  /** A GET stream (server-to-client messages) rather than the answer to a POST. */
  isGet: boolean;
}

/**
 * Relays the instance's response body to the client as it arrives (no buffering: every chunk is written the
 * moment it is read), pausing the instance's socket while the client's is full (back-pressure: a slow client
 * holds at most the sockets' buffers on the Hub), and cuts it when it grows past the byte limit or relays
 * nothing for the idle time (see the file comment).
 */
function relay(up: IncomingMessage, res: ServerResponse, limits: StreamLimits, release: () => void) {
  let finished = false;
  let relayed = 0;
  const finish = () => {
    if (finished) return false;
    finished = true;
    clearTimeout(idle);
    release();
    return true;
  };
  const cut = (why: string) => {
    if (!finish()) return;
    up.destroy();
    logger.warn({ rpcId: limits.rpcId, relayedBytes: relayed }, `MCP response cut: ${why}`);
    if (limits.sse && limits.isGet) return void res.end(); // the client reconnects
    if (limits.sse && limits.rpcId !== null) {
      // End any partial event, then fail the pending call with the reason.
      const event = JSON.stringify({
        jsonrpc: '2.0',
        id: limits.rpcId,
        error: { code: RPC_LIMIT_EXCEEDED, message: why },
      });
      return void res.end(`\n\nevent: message\ndata: ${event}\n\n`);
    }
    res.destroy(); // the client sees the answer aborted
  };
  const idle = setTimeout(
    () =>
      cut(`The instance sent nothing for ${limits.idleMs} ms; the Hub closed the response (HUB_MCP_IDLE_TIMEOUT_MS)`),
    limits.idleMs,
  );
  up.on('data', (chunk: Buffer) => {
    if (finished) return;
    relayed += chunk.byteLength;
    if (relayed > limits.maxBytes) {
      return cut(
        `The instance's response exceeded ${limits.maxBytes} bytes; the Hub cut it (HUB_MCP_MAX_RESPONSE_BYTES)`,
      );
    }
    idle.refresh();
    if (!res.write(chunk)) up.pause();
  });
  res.on('drain', () => up.resume());
  up.once('end', () => {
    if (finish()) res.end();
  });
  // The instance closed the stream before its end: the client's answer ends there too.
  up.once('close', () => {
    if (finish()) res.end();
  });
  // The client went away: close the instance's stream too (no leaked sockets).
  res.once('close', () => {
    if (finish()) up.destroy();
  });
}

interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  target: URL;
  assertion: string;
  /** The body the Hub read, or null: the client's request streams through (POST) or there is none. */
  body: Buffer | null;
  rpcId: RpcId;
  release: () => void;
  marks: [string, number][];
}

/**
 * Forwards one call and answers the client; resolves with the instance's HTTP status (null when it was not
 * reached) once the response started. `release` runs once when the call is over (failed, answered without a
 * body, or its body ended or was cut).
 */
function forward({ req, res, target, assertion, body, rpcId, release, marks }: Call): Promise<number | null> {
  return new Promise<number | null>((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${assertion}`, 'accept-encoding': 'identity' };
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (body) headers['content-length'] = String(body.byteLength);
    else if (req.headers['content-length'] !== undefined) headers['content-length'] = req.headers['content-length'];

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
    const onClientGone = () => {
      if (!res.writableFinished) upstream.destroy(new Error('client disconnected'));
    };
    res.once('close', onClientGone);

    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimers();
      release();
      upstream.destroy();
      if (err instanceof UpstreamTimeout) {
        writeRpcError(res, 504, RPC_UPSTREAM_TIMEOUT, err.message, rpcId);
      } else if (err instanceof UpstreamBlockedError) {
        requestLogger().warn({ upstream: err.host, address: err.address }, 'MCP upstream refused: private address');
        writeRpcError(res, 502, RPC_UPSTREAM_FAILED, err.message, rpcId);
      } else {
        // Which error (refused, reset, no such name) stays in the log: it would tell the caller which hosts answer.
        requestLogger().warn(
          { upstream: target.host, code: (err as NodeJS.ErrnoException).code },
          'MCP upstream unreachable',
        );
        writeRpcError(res, 502, RPC_UPSTREAM_FAILED, "The instance's MCP endpoint is unreachable", rpcId);
      }
      resolve(null);
    };

    timers.push(
      setTimeout(
        () => fail(new UpstreamTimeout(`The instance did not answer within ${config.mcpResponseTimeoutMs} ms`)),
        config.mcpResponseTimeoutMs,
      ),
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

    upstream.once('response', (up) => {
      if (settled) return void up.destroy();
      settled = true;
      clearTimers();
      marks.push(['upstream', performance.now()]);
      const status = up.statusCode ?? 502;
      resolve(status);
      // Errors of the instance become the Hub's 502; a redirect is not followed (it could point anywhere),
      // and a 401 means the instance refused the Hub's assertion, not the client's token.
      if (status >= 500 || (status >= 300 && status < 400) || status === 401) {
        release();
        up.destroy();
        const what =
          status === 401
            ? 'refused the Hub’s assertion (HTTP 401)'
            : status < 400
              ? `answered with a redirect (HTTP ${status})`
              : `failed (HTTP ${status})`;
        return writeRpcError(res, 502, RPC_UPSTREAM_FAILED, `The instance's MCP endpoint ${what}`, rpcId);
      }
      const maxBytes = config.mcpMaxResponseBytes;
      if (Number(up.headers['content-length'] ?? 0) > maxBytes) {
        release();
        up.destroy();
        const message = `The instance's response (${up.headers['content-length']} bytes) exceeds the Hub's limit of ${maxBytes} bytes (HUB_MCP_MAX_RESPONSE_BYTES)`;
        return writeRpcError(res, 502, RPC_LIMIT_EXCEEDED, message, rpcId);
      }
      if (res.destroyed) {
        release();
        return void up.destroy();
      }
      const out: Record<string, string> = {
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        'server-timing': serverTiming(marks),
      };
      for (const name of FORWARDED_RESPONSE_HEADERS) {
        const value = up.headers[name];
        if (typeof value === 'string') out[name] = value;
      }
      res.writeHead(status, out);
      if (status === 204 || status === 205 || status === 304) {
        release();
        up.resume();
        return void res.end();
      }
      const sse = (up.headers['content-type'] ?? '').startsWith('text/event-stream');
      // An event stream's headers go out now: its first event may be minutes away (an MCP GET stream), and
      // the client waits for the headers to know the stream is open.
      if (sse) res.flushHeaders();
      relay(up, res, { maxBytes, idleMs: config.mcpIdleTimeoutMs, rpcId, sse, isGet: req.method === 'GET' }, release);
    });

    if (body) upstream.end(body);
    else if (req.method === 'POST') {
      req.on('error', (err) => upstream.destroy(err));
      req.pipe(upstream);
    } else upstream.end();
  });
}

// ---------------------------------------------------------------- entry point

/**
 * The /mcp handler (POST, GET and DELETE) on Node's own request and response. Failures of the Hub itself go
 * through the one error mapper: a database outage is 503 with Retry-After, anything unexpected 500 without details.
 */
export function serveMcp(req: IncomingMessage, res: ServerResponse): void {
  if (!MCP_METHODS.has(req.method ?? '')) {
    const refused = new TransportError('METHOD_NOT_SUPPORTED', 'Use GET, POST or DELETE on /mcp');
    return writeFailure(refused, res, '/mcp', () => ({ allow: 'GET, POST, DELETE' }));
  }
  proxy(req, res).catch((err) => writeFailure(err, res, '/mcp'));
}

/**
 * Where a forwarded call's time went (token check, body read, assertion, instance until its headers), as a
 * Server-Timing header: the benchmark reports it, and so can a browser's or a client's developer tools.
 */
function serverTiming(marks: [string, number][]) {
  return marks
    .slice(1)
    .map(([name, at], i) => `${name};dur=${(at - marks[i]![1]).toFixed(2)}`)
    .join(', ');
}

async function proxy(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const marks: [string, number][] = [['start', performance.now()]];
  let pat: ResolvedPat;
  try {
    const token = bearerToken(req.headers.authorization);
    const address = sourceAddress(nodeHeaders(req))?.ip ?? 'unknown';
    ({ caller: pat } = await admit(
      address,
      token !== null,
      () => resolvePat(token),
      (p) => `svp:${p.tokenId}`,
    ));
    noteCaller({ kind: 'pat', id: pat.tokenId });
  } catch (err) {
    if (err instanceof DomainError) return writeRefusal(err, res);
    throw err;
  }
  marks.push(['pat', performance.now()]);

  let body: Buffer | null = null;
  let method: string | null = null;
  let rpcId: RpcId = null;
  if (req.method === 'POST') {
    const length = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(length) && length <= INSPECT_MAX_BYTES) {
      const read = (await readNodeBody(req, INSPECT_MAX_BYTES))!;
      body = Buffer.from(read.buffer, read.byteOffset, read.byteLength);
      const rpc = inspectRpc(body);
      // Not JSON: JSON-RPC's parse error, from the Hub (an instance may well fail on it with a 5xx).
      if (!rpc) return writeRpcError(res, 400, -32700, 'Parse error: the request body is not valid JSON', null);
      ({ method, id: rpcId } = rpc);
    }
  }

  const record = (upstreamStatus: number | null) => void recordMcpCall({ pat, method, upstreamStatus });

  if (!pat.mcpUrl) {
    record(null);
    return writeRpcError(
      res,
      503,
      RPC_NOT_REGISTERED,
      'The instance this token is bound to has not registered its MCP URL with the Hub yet (the instance reports it with PUT /api/v1/instance-info {mcp_url}). Connect the instance to the Hub, or ask its administrator to.',
      rpcId,
    );
  }
  const target = targetOf(pat.mcpUrl);
  if (target.error) {
    record(null);
    return writeRpcError(res, 502, RPC_UPSTREAM_FAILED, target.error, rpcId);
  }
  // A plain-http URL stored before such URLs were refused (or allowed then): nothing is sent in clear.
  if (insecureMcpUrl(target.url)) {
    record(null);
    return writeRpcError(
      res,
      502,
      RPC_UPSTREAM_FAILED,
      "The instance's MCP URL is plain http:// to a host other than loopback; the Hub does not send calls in clear. The instance must report an https:// MCP URL (or the Hub operator allow plain http with HUB_ALLOW_INSECURE_MCP_URL=true)",
      rpcId,
    );
  }
  const blocked = checkLiteralHost(target.url.hostname);
  if (blocked) {
    requestLogger().warn({ upstream: blocked.host }, 'MCP upstream refused: private address');
    record(null);
    return writeRpcError(res, 502, RPC_UPSTREAM_FAILED, blocked.message, rpcId);
  }

  const release = takeSlot(pat);
  if (typeof release === 'string') {
    // Not forwarded, not recorded: a client over its limit costs no write.
    const message =
      release === 'token'
        ? `Too many open MCP calls and streams with this token (${config.mcpMaxStreamsPerToken} at once, ` +
          'HUB_MCP_MAX_STREAMS_PER_TOKEN); retry when one has finished'
        : `Too many open MCP calls and streams of this person over all their tokens (${config.mcpMaxStreamsPerUser} at ` +
          'once, HUB_MCP_MAX_STREAMS_PER_USER); retry when one has finished';
    return writeRpcError(res, 429, RPC_LIMIT_EXCEEDED, message, rpcId, { 'retry-after': '1' });
  }
  marks.push(['body', performance.now()]);
  let assertion: string;
  try {
    assertion = await assertionFor(pat, pat.mcpUrl);
  } catch (err) {
    release();
    throw err;
  }
  marks.push(['assertion', performance.now()]);
  if (res.destroyed) return release(); // the client left while the Hub checked its token
  const status = await forward({ req, res, target: target.url, assertion, body, rpcId, release, marks });
  // A client's GET (or DELETE) answered 405 is the protocol's "no stream (or session) here", which a stateless
  // instance such as Core gives every client once per connection: not a call the instance refused.
  if (status === 405 && req.method !== 'POST') return;
  record(status);
}
