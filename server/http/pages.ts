/**
 * Next.js in the production server: everything the edge (edge.ts) does not serve itself — the dashboard, sign-in,
 * /api/trpc, the OpenAPI document, JWKS.
 *
 * On PostgreSQL Next.js runs on a thread of its own (a worker with its own V8 isolate: pagesThread.ts), and the edge
 * hands it each of those requests over a Unix socket in a private (0700) directory. Prepared on the edge's thread,
 * Next.js's code made every REST answer slower, by 8-24 % of a keyed 304's CPU: Node's own per-request functions
 * ran 1.3-3× longer once it had run in the isolate (docs/performance.md, "Next.js on a thread of its own"). The
 * pages thread is to the edge what a second Hub process is: its own database pool, caches kept current by
 * LISTEN/NOTIFY (db/invalidation.ts), rate limits shared through the database. Its counters are added to the edge's
 * /metrics; SIGTERM drains it after the edge's in-flight requests (its batched writes stored, its database closed);
 * if it dies, the process exits for its supervisor to restart it.
 *
 * On the embedded database Next.js stays on the edge's thread: a data folder is opened by one thread of one
 * process (its lock would take a second opening by this pid for a stale holder: docs/notes.md).
 */
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { TransportError } from '../api/errors';
import { config } from '../config';
import type { Database } from '../db/client';
import { currentRequest, endLogs, logger, type Caller } from '../log';
import type { Fallback } from './edge';
import { writeFailure } from './nodeHttp';
import {
  CALLER_HEADER,
  type PagesAnswer,
  type PagesReady,
  type PagesRequest,
  type PagesThreadData,
} from './pagesProtocol';

export interface PagesOptions {
  /** The project's root (what `next build` wrote to .next). */
  dir: string;
  hostname: string;
  port: number;
  /** The pages thread's bundle (dist/server/pages-thread.mjs). */
  thread: URL;
}

export async function startPages(database: Database, options: PagesOptions): Promise<Fallback> {
  if (database.kind !== 'postgres') return startInThisThread(options);
  return startOnThread(options);
}

async function startInThisThread({ dir, hostname, port }: PagesOptions): Promise<Fallback> {
  // Imported only here: on PostgreSQL the edge's isolate never loads Next.js at all (importing it alone cost ~2 µs
  // per keyed 304: docs/performance.md).
  const { default: next } = await import('next');
  const app = next({ dev: false, dir, hostname, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  return { handle: (req, res) => void handle(req, res) };
}

async function startOnThread({ thread, ...options }: PagesOptions): Promise<Fallback> {
  // mkdtemp makes the directory 0700: only this user reaches the socket, which trusts the edge's X-Forwarded-For.
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-pages-'));
  const socketPath = path.join(socketDir, 'next.sock');
  const worker = new Worker(thread, { workerData: { pages: { ...options, socketPath } } satisfies PagesThreadData });
  const waiting = new Map<number, (answer: PagesAnswer) => void>();
  let nextId = 1;
  let stopping = false;

  await new Promise<void>((resolve, reject) => {
    worker.on('message', (message: PagesAnswer | PagesReady) => {
      if ('ready' in message) return resolve();
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    });
    worker.once('error', (err) => {
      reject(err);
      if (!stopping) logger.fatal({ err: err.message }, 'the pages thread failed');
    });
    worker.once('exit', (code) => {
      fs.rmSync(socketDir, { recursive: true, force: true });
      // Nothing more will answer: a drain or a scrape waiting on the thread goes on without it.
      for (const answered of waiting.values()) answered({ id: 0 });
      waiting.clear();
      reject(new Error(`the pages thread ended (exit ${code}) before it was ready`));
      // REST without pages (or pages never drained) is worse than a restart by the supervisor.
      if (!stopping) {
        logger.fatal({ code }, 'the pages thread ended: stopping the server');
        void endLogs().then(() => process.exit(1));
      }
    });
  });

  const ask = (op: PagesRequest['op']) =>
    new Promise<PagesAnswer>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      worker.postMessage({ op, id } satisfies PagesRequest);
    });

  return {
    handle: proxyTo(socketPath),
    metrics: async () => (await ask('metrics')).metrics ?? [],
    close: async () => {
      stopping = true;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise((resolve) => (timer = setTimeout(resolve, config.shutdownTimeoutMs)));
      await Promise.race([ask('drain'), deadline]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}

/** Headers of one connection, not of the message: never forwarded by a proxy (RFC 9110, section 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const kept: http.OutgoingHttpHeaders = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) kept[name] = headers[name];
  return kept;
}

/** The edge's handler for pages: each request passed on over the socket, the answer streamed back as it comes. */
export function proxyTo(socketPath: string): (req: IncomingMessage, res: ServerResponse) => void {
  const agent = new http.Agent({ keepAlive: true });
  return (req, res) => {
    const context = currentRequest();
    const options = { agent, socketPath, path: req.url, method: req.method, headers: endToEnd(req.headers) };
    const upstream = http.request(options, (answer) => {
      const headers = endToEnd(answer.headers);
      const caller = headers[CALLER_HEADER];
      delete headers[CALLER_HEADER];
      if (context && typeof caller === 'string') context.caller = JSON.parse(caller) as Caller;
      // The edge's own headers (request id, security headers) are already set: the answer's are added to them.
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (left) return; // the client's leaving cut it (below)
      if (res.headersSent) return void res.destroy();
      logger.error({ err: err.message }, 'the pages thread did not answer');
      writeFailure(new TransportError('BAD_GATEWAY', 'The page could not be served: try again'), res, 'pages');
    });
    // A client that leaves stops the page's work.
    let left = false;
    res.once('close', () => {
      left = !res.writableFinished;
      if (left) upstream.destroy();
    });
    req.pipe(upstream);
  };
}
