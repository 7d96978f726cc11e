/**
 * Structured logs (pino, JSON lines on stdout) and the request context they carry.
 * The production server (server/http/serve.ts) opens a request context per request: its id (echoed in
 * X-Request-Id) and, once the credential resolver has run, who called (kind and id — never a secret).
 * The access line and any error logged while serving the request carry both.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import { config } from './config';

// Non-blocking stdout: lines written while a write is in flight are coalesced (one access line per
// request must not cost a blocking syscall each); pino flushes what is pending when the process exits.
const destination = pino.destination({ dest: 1, sync: false });

export const logger = pino(
  {
    level: config.logLevel,
    base: { service: 'hub' },
    // Belt and braces: credential-bearing fields are never written, whatever a caller passes in.
    redact: { paths: ['authorization', 'cookie', 'token', 'secret', '*.authorization', '*.cookie', '*.token', '*.secret'], censor: '[redacted]' },
  },
  destination,
);

/**
 * The access line's logger (server/http/edge.ts), on the same stream. Its fields are fixed — method, route
 * without the query string, status, duration, request id, caller kind and id — and never carry a header,
 * secret or token, so it skips redaction (which, with wildcard paths, costs more than the rest of the line:
 * it is written once per request).
 */
export const accessLogger = pino({ level: config.logLevel, base: { service: 'hub' } }, destination);

/**
 * Before the process exits: writes every line still pending on the non-blocking stream and resolves once it
 * is written (at most `limitMs` later). `logger.flush()` does not wait for writes already in flight, so lines
 * of the last milliseconds (the drain's "stopped") could be lost to process.exit().
 */
export function endLogs(limitMs = 2_000): Promise<void> {
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
  caller?: Caller;
}

const requests = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with a request context; everything it starts (awaits, streams) sees it. */
export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return requests.run(context, fn);
}

export function currentRequest(): RequestContext | undefined {
  return requests.getStore();
}

/** Extension point of the identity edge: the resolver names who is calling, for the access line. */
export function noteCaller(caller: Caller) {
  const context = requests.getStore();
  if (context) context.caller = caller;
}

/** The logger of the current request (its id in every line), or the process logger. */
export function requestLogger() {
  const context = requests.getStore();
  return context ? logger.child({ requestId: context.requestId }) : logger;
}
