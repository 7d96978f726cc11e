/**
 * The production server's edge, shared by server/http/serve.ts and the process tests: one Node http server
 * that serves /healthz and /readyz, REST /api/v1/* and /mcp straight from the Hub's handlers, and hands
 * everything else to `fallback` (Next.js in production).
 *
 * Every request gets a request id (X-Request-Id, the caller's own when it looks like one), security
 * headers, and one JSON access line when it ends. Timeouts and a connection cap bound what clients can
 * hold. `drain()` is SIGTERM's sequence: not ready, stop accepting, let in-flight requests and streams
 * finish up to HUB_SHUTDOWN_TIMEOUT_MS, write what is batched, close the database.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { REST_PREFIX } from '../api/rest';
import { config } from '../config';
import { checkDatabase, closeDatabase, replicaStatus, type Database } from '../db/client';
import {
  endLogs,
  logger,
  requestIdFrom,
  withRequestContext,
  writeAccessLine,
  type Caller,
  type RequestContext,
} from '../log';
import { flushBatchedWrites } from './batchedWrites';
import { serveMcp } from './mcp/proxy';
import { ANSWER_BYTES, forwardedFor, serveRest } from './nodeHttp';
import { API_CSP, baseSecurityHeaders } from './securityHeaders';
import { metricsAnswer } from './metrics';
import { observeRequest, routeClass, type RouteClass } from '../metrics';
import type { MetricSnapshot } from '@shared/metrics';

const REST_PATHS = `${REST_PREFIX}/`;
const OPENAPI_PATH = `${REST_PREFIX}/openapi.json`;
const isRest = (pathname: string) => pathname.startsWith(REST_PATHS) && pathname !== OPENAPI_PATH;
const isProbe = (pathname: string) => pathname === '/healthz' || pathname === '/readyz';

function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

const ANONYMOUS_CALLER: Caller = { kind: 'anonymous' };

/** A response of the edge, with what its end (the access line, the metrics) needs of its request. */
class EdgeResponse<Request extends IncomingMessage = IncomingMessage> extends http.ServerResponse<Request> {
  started = 0;
  pathname = '';
  kind: RouteClass = 'page';
  method: string | undefined = undefined;
  context: RequestContext | undefined = undefined;
  /** The REST answer's body bytes (nodeHttp.ts writeAnswer), when no Content-Length header is kept. */
  [ANSWER_BYTES]?: number = undefined;
}

/** What serves every request the edge does not: Next.js in production (pages.ts), a stand-in in tests. */
export interface Fallback {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Figures counted outside the edge's thread (the pages thread's), added to /metrics. */
  metrics?(): Promise<MetricSnapshot[]>;
  /** SIGTERM, once the edge's in-flight requests are done: what it batched stored, its database closed. */
  close?(): Promise<void>;
}

export interface Edge {
  server: http.Server;
  /** SIGTERM: resolves once the server is closed, batched writes are flushed and the database is closed. */
  drain(reason: string): Promise<void>;
}

export function createEdge(database: Database, fallback: Fallback): Edge {
  if (config.allowInsecureMcpUrl)
    logger.warn(
      'HUB_ALLOW_INSECURE_MCP_URL=true: instances may register plain http:// MCP URLs on any host; MCP ' +
        'calls and the secret values in their answers then cross the network in clear',
    );
  let draining = false;
  /** The listening socket is closed (after the ready delay): idle kept-alive connections are closed too. */
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  let allDone: (() => void) | undefined;

  /** Load balancers and orchestrators: ready while the database answers and the process is not draining. */
  async function readiness(res: ServerResponse) {
    if (draining) return writeJson(res, 503, { status: 'draining' }, { 'retry-after': '1' });
    try {
      await checkDatabase();
      // Replicas that are down or lagging are skipped (their reads go to the primary): still ready, but said.
      writeJson(res, 200, {
        status: 'ready',
        database: database.kind,
        ...(database.replicas && { replicas: replicaStatus() }),
      });
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'not ready: database unavailable');
      writeJson(
        res,
        503,
        { status: 'unavailable', database: database.kind, reason: 'database unavailable' },
        { 'retry-after': '1' },
      );
    }
  }

  function route(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string, rest: boolean) {
    if (pathname === '/healthz') return writeJson(res, 200, { status: 'ok' });
    if (pathname === '/readyz') return void readiness(res);
    if (pathname === '/metrics')
      return void metricsAnswer(req.headers.authorization, fallback.metrics).then((a) =>
        res.writeHead(a.status, a.headers).end(a.body),
      );
    // REST: the edge's headers go out with the answer's in one writeHead (nodeHttp.ts writeAnswer), none set before.
    if (rest) return serveRest(req, res, [...restHeaders, 'x-request-id', requestId]);
    if (pathname === '/mcp') return serveMcp(req, res);
    // Next.js copies the peer into X-Forwarded-For only when the header is missing: give it the same chain.
    const forwarded = forwardedFor(req);
    if (forwarded) req.headers['x-forwarded-for'] = forwarded;
    // Next.js's handlers (tRPC, the export) see this request's id too, whatever their async context.
    req.headers['x-request-id'] = (res.getHeader('x-request-id') as string | undefined) ?? req.headers['x-request-id'];
    fallback.handle(req, res);
  }

  // The configuration is fixed for the life of the process: computed once, not per request.
  const securityHeaders = Object.entries(baseSecurityHeaders());
  const restHeaders = [...securityHeaders.flat(), 'content-security-policy', API_CSP];

  /**
   * A request's end: out of the in-flight set, one access line, the request metrics. One function for every response
   * (`this`), its request's facts kept on the response (EdgeResponse): no closure or once-wrapper per request.
   */
  function finished(this: EdgeResponse) {
    inFlight.delete(this);
    if (inFlight.size === 0) allDone?.();
    // Closing: a kept-alive connection whose answer (e.g. a stream) ended after the socket closed takes no further
    // request. Not during the ready delay: the process still serves, and closing a connection a client is about
    // to reuse would fail that client's request (answers then carry Connection: close instead).
    if (closing) setImmediate(() => server.closeIdleConnections());
    const context = this.context!;
    const durationMs = performance.now() - this.started;
    // One access line per request: the path without its query string (it may carry anything), never a header or a secret.
    writeAccessLine(
      this.kind === 'probe' ? 'debug' : 'info',
      context.requestId,
      this.method,
      this.pathname,
      this.statusCode,
      Math.round(durationMs * 10) / 10,
      context.caller ?? ANONYMOUS_CALLER,
      !this.writableFinished,
    );
    const bytes = this.getHeader('content-length') ?? this[ANSWER_BYTES] ?? 0;
    observeRequest(this.kind, this.statusCode, durationMs, Number(bytes));
  }

  const server = http.createServer<typeof IncomingMessage, typeof EdgeResponse>(
    { ServerResponse: EdgeResponse },
    (req, res) => {
      res.started = performance.now();
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const pathname = query === -1 ? url : url.slice(0, query);
      const kind = routeClass(pathname);
      const context: RequestContext = { requestId: requestIdFrom(req.headers['x-request-id']), route: kind };
      res.pathname = pathname;
      res.kind = kind;
      res.method = req.method;
      res.context = context;
      const rest = isRest(pathname);
      if (!rest) {
        res.setHeader('x-request-id', context.requestId);
        for (const [name, value] of securityHeaders) res.setHeader(name, value);
        // Pages get theirs, with a nonce, from proxy.ts.
        if (pathname === '/mcp' || isProbe(pathname)) res.setHeader('content-security-policy', API_CSP);
      }
      if (draining) res.setHeader('connection', 'close');

      inFlight.add(res);
      res.on('close', finished);
      withRequestContext(context, () => route(req, res, pathname, context.requestId, rest));
    },
  );
  // Longer than common client and load-balancer idle timeouts, so kept-alive connections are not cut under them.
  server.keepAliveTimeout = 65_000;
  // Slow or stalled clients cannot hold sockets: headers within this, the whole request (not the answer) within that.
  server.headersTimeout = config.headersTimeoutMs;
  server.requestTimeout = Math.max(config.requestTimeoutMs, config.headersTimeoutMs);
  server.maxConnections = config.maxConnections;

  async function drain(reason: string) {
    draining = true;
    const deadline = config.shutdownTimeoutMs;
    logger.info(
      { reason, inFlight: inFlight.size, deadlineMs: deadline, readyDelayMs: config.shutdownReadyDelayMs },
      'draining',
    );
    // Not ready, still serving: balancers that follow /readyz stop sending new requests before the socket closes.
    if (config.shutdownReadyDelayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, config.shutdownReadyDelayMs));
    closing = true;
    server.close();
    server.closeIdleConnections();
    // Answers not yet started close their connection once sent: no further request arrives on it.
    for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    if (inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (allDone = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, deadline))),
      ]);
      clearTimeout(timer);
    }
    if (inFlight.size > 0)
      logger.warn({ cut: inFlight.size }, 'shutdown deadline reached: closing the remaining connections');
    server.closeAllConnections();
    await fallback.close?.().catch((err) => logger.error({ err: (err as Error).message }, 'pages not drained cleanly'));
    await flushBatchedWrites();
    await closeDatabase().catch((err) => logger.error({ err: (err as Error).message }, 'database not closed cleanly'));
    logger.info('stopped');
  }

  return { server, drain };
}

/** This process's lifecycle: the first SIGTERM or SIGINT drains, then the process exits 0. */
export function exitOnSignals(edge: Edge) {
  // The log is written asynchronously: let it finish (in order) before the process ends.
  const stop = (signal: string) => void edge.drain(signal).finally(() => endLogs().then(() => process.exit(0)));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
