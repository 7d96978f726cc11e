/**
 * Structured logs (pino, JSON lines on stdout; on stderr in the CLI) and the request context they carry.
 * The production server (server/http/serve.ts) opens a request context per request: its id (echoed in
 * X-Request-Id) and, once the credential resolver has run, who called (kind and id — never a secret).
 * The access line and any error logged while serving the request carry both.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createLogger, requestIdFrom, withRequestId } from '@shared/logger';
import { withHeader } from '@shared/ops';
import pino from 'pino';
import { config } from './config';

export { requestIdFrom };

// Non-blocking stdout, written in blocks: lines are gathered up to LOG_BLOCK_BYTES (one access line per request
// must not cost a write each: under load that write was a tenth of a cached answer's CPU), and what is gathered
// is written at least every LOG_FLUSH_MS (only when a line is pending: patches/sonic-boom+*.patch). pino writes what is
// pending when the process exits.
const LOG_BLOCK_BYTES = 4_096;
const LOG_FLUSH_MS = 100;
const destination = pino.destination({
  dest: config.logFd,
  sync: false,
  minLength: LOG_BLOCK_BYTES,
  periodicFlush: LOG_FLUSH_MS,
});

// Belt and braces: credential-bearing fields are never written, whatever a caller passes in (@shared/logger's rules).
export const logger = createLogger({ service: 'hub', level: config.logLevel, destination });

/**
 * The access line's logger (server/http/edge.ts), on the same stream. Its fields are fixed — method, route
 * without the query string, status, duration, request id, caller kind and id — and never carry a header,
 * secret or token, so it skips redaction (which, with wildcard paths, costs more than the rest of the line:
 * it is written once per request).
 */
export const accessLogger = createLogger({ service: 'hub', level: config.logLevel, destination, redact: false });

/**
 * The wall clock as the process started with it. Next.js's server (next-server, required when the production server
 * prepares it) replaces the global Date with a wrapper that consults its prerender stores on every `Date.now()` and
 * `new Date()` (for cacheComponents, which the Hub does not use); the per-request path reads the clock through this.
 * Captured when this module is evaluated, before Next.js is prepared.
 */
export const wallClock: () => number = Date.now;

const LEVELS = { info: 30, debug: 20 } as const;
/** Text JSON takes as it is between quotes: printable ASCII but `"` and `\`. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const quoted = (text: string) => (PLAIN.test(text) ? `"${text}"` : JSON.stringify(text));

/**
 * One access line (server/http/edge.ts), written as one string straight into the log's stream: the line
 * `accessLogger[level]({ requestId, method, route, status, durationMs, caller, aborted }, 'request')` writes, field
 * for field, without pino's per-line object walk (the line is written once per request: a 304 poll's largest step
 * after the kernel's). Honours the access logger's level (silent after endLogs).
 */
export function writeAccessLine(
  level: keyof typeof LEVELS,
  requestId: string,
  method: string | undefined,
  route: string,
  status: number,
  durationMs: number,
  caller: Caller,
  aborted: boolean,
): void {
  if (accessLogger.levelVal > LEVELS[level]) return;
  destination.write(accessLineText(level, wallClock(), requestId, method, route, status, durationMs, caller, aborted));
}

/** The text of one access line (writeAccessLine), as pino writes it: same fields, same order, same escaping. */
export function accessLineText(
  level: keyof typeof LEVELS,
  time: number,
  requestId: string,
  method: string | undefined,
  route: string,
  status: number,
  durationMs: number,
  caller: Caller,
  aborted: boolean,
): string {
  const who =
    caller.id === undefined ? `{"kind":"${caller.kind}"}` : `{"kind":"${caller.kind}","id":${quoted(caller.id)}}`;
  return (
    `{"level":${LEVELS[level]},"time":${time},"service":"hub","requestId":${quoted(requestId)}` +
    (method === undefined ? '' : `,"method":${quoted(method)}`) +
    `,"route":${quoted(route)},"status":${status},"durationMs":${durationMs},"caller":${who}` +
    (aborted ? ',"aborted":true,"msg":"request"}\n' : ',"msg":"request"}\n')
  );
}

/**
 * Before the process exits: writes every line still pending on the non-blocking stream and resolves once it
 * is written (at most `limitMs` later). `logger.flush()` does not wait for writes already in flight, so lines
 * of the last milliseconds (the drain's "stopped") could be lost to process.exit().
 */
export function endLogs(limitMs = 2_000): Promise<void> {
  // Lines after this one (the access line of a connection cut at exit) are dropped: the stream is ending, and
  // a write to an ended stream throws, which would crash the exit.
  logger.level = 'silent';
  accessLogger.level = 'silent';
  return new Promise((resolve) => {
    destination.once('close', () => resolve());
    setTimeout(resolve, limitMs).unref();
    try {
      destination.end();
    } catch {
      resolve(); // already ended
    }
  });
}

export interface Caller {
  kind: 'anonymous' | 'instance' | 'user' | 'pat';
  /** The instance key's, user's or personal access token's id (never the secret). */
  id?: string;
}

export interface RequestContext {
  requestId: string;
  /** What the request is (routeClass in metrics.ts; set by the edge), for attributing its database statements. */
  route?: string;
  caller?: Caller;
}

// On globalThis: the server's code and Next.js's bundled copy of it (one per thread) must see one request context, so
// that what Next.js's handlers note (the caller, the statements' route class) reaches the access line and the metrics.
const stores = globalThis as {
  __hubRequestContext?: AsyncLocalStorage<RequestContext>;
  __hubBackgroundJob?: AsyncLocalStorage<string>;
};
const requests = (stores.__hubRequestContext ??= new AsyncLocalStorage<RequestContext>());
const background = (stores.__hubBackgroundJob ??= new AsyncLocalStorage<string>());

/**
 * Runs batched or periodic work (flushes, monitors) as `job`, outside the request that happened to start its timer
 * (a timer inherits the context it was created in): its statements count under the job's name, and what it calls
 * finds no current request (requestLogger, currentRequest).
 */
export function runInBackground<T>(job: string, fn: () => T): T {
  return requests.exit(() => background.run(job, fn));
}

/** What is running now, for attribution: a background job's name, a request's route class, or undefined. */
export function currentWork(): string | undefined {
  return background.getStore() ?? requests.getStore()?.route;
}

/** Runs `fn` with a request context; everything it starts (awaits, streams) sees it. */
export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return requests.run(context, fn);
}

export function currentRequest(): RequestContext | undefined {
  return requests.getStore();
}

/**
 * A Fetch handler's request context when no edge opened one (the Next routes under `next dev`, tests calling
 * handlers directly): its id from X-Request-Id or new, echoed in the answer's X-Request-Id. Under the production
 * edge (server/http/edge.ts) the edge's context and header are kept.
 */
export async function inRequestContext(req: Request, handle: () => Promise<Response>): Promise<Response> {
  if (requests.getStore()) return handle();
  const context: RequestContext = { requestId: requestIdFrom(req.headers.get('x-request-id')) };
  return withHeader(await requests.run(context, handle), 'x-request-id', context.requestId);
}

/** Extension point of the identity edge: the resolver names who is calling, for the access line. */
export function noteCaller(caller: Caller) {
  const context = requests.getStore();
  if (context) context.caller = caller;
}

/** The logger of the current request (its id in every line), or the process logger. */
export function requestLogger() {
  const context = requests.getStore();
  return context ? withRequestId(logger, context.requestId) : logger;
}
