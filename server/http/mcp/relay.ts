/**
 * The upstream half of the /mcp proxy: the instance's MCP URL, the Hub assertion sent in place of the client's
 * token, forwarding one call and relaying its answer as it arrives, within the byte and idle limits
 * (server/http/mcp/proxy.ts describes them).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { config } from '../../config';
import { signInstanceAssertion } from '../../domain/jwt';
import type { ResolvedPat } from '../../domain/pats';
import { logger, requestLogger } from '../../log';
import { RPC_LIMIT_EXCEEDED, RPC_UPSTREAM_FAILED, RPC_UPSTREAM_TIMEOUT, writeRpcError, type RpcId } from './answers';
import { UpstreamBlockedError, upstreamAgents } from './outbound';

/** Request headers passed to the instance (everything else, the client's Authorization first, stays here). */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];
/** Response headers passed back to the client. */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'retry-after', 'allow'];
const ASSERTION_TTL_SECONDS = 60;

interface Target {
  url: URL;
  error: string | null;
}

/** Parsed instance MCP URLs (reported rarely, read on every call). */
const targets = new Map<string, Target>();

export function targetOf(mcpUrl: string): Target {
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
export function assertionFor(pat: ResolvedPat, destination: string): Promise<string> {
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
  /** The instance's Content-Length was passed on: a body that ends short is aborted, never ended as if whole. */
  sized: boolean;
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
  // The instance closed the stream before its end: the client's answer ends there too (aborted when its length was
  // declared: ending it would leave the client waiting for the rest).
  up.once('close', () => {
    if (finish()) {
      if (limits.sized) res.destroy();
      else res.end();
    }
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
export function forward({ req, res, target, assertion, body, rpcId, release, marks }: Call): Promise<number | null> {
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
        const message =
          `The instance's response (${up.headers['content-length']} bytes) exceeds the Hub's limit of ` +
          `${maxBytes} bytes (HUB_MCP_MAX_RESPONSE_BYTES)`;
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
      const sse = (up.headers['content-type'] ?? '').startsWith('text/event-stream');
      // A sized answer (not an event stream, which a cut may extend with an error event) keeps its length: the
      // client reads it without chunked framing, and its end costs no terminating write.
      const length = up.headers['content-length'];
      const sized = !sse && length !== undefined && status !== 204 && status !== 205 && status !== 304;
      if (sized) out['content-length'] = length;
      res.writeHead(status, out);
      if (status === 204 || status === 205 || status === 304) {
        release();
        up.resume();
        return void res.end();
      }
      // An event stream's headers go out now: its first event may be minutes away (an MCP GET stream), and
      // the client waits for the headers to know the stream is open.
      if (sse) res.flushHeaders();
      const limits = { maxBytes, idleMs: config.mcpIdleTimeoutMs, rpcId, sse, isGet: req.method === 'GET', sized };
      relay(up, res, limits, release);
    });

    if (body) upstream.end(body);
    else if (req.method === 'POST') {
      req.on('error', (err) => upstream.destroy(err));
      req.pipe(upstream);
    } else upstream.end();
  });
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
