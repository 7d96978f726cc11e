/**
 * The pages thread's entry (bundled on its own as dist/server/pages-thread.mjs; started by pages.ts): Next.js on a
 * Unix socket, each request in the edge's request context (its id, its route class for the statements' metrics),
 * the caller that Next.js's handlers noted sent back in a header for the edge's access line. It answers the edge's
 * thread's requests for its counters and for its drain. Only what that needs is loaded here: the server's code that
 * pages run is Next.js's own bundled copy.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import next from 'next';
import { closeDatabase } from '../db/client';
import { endLogs, logger, requestIdFrom, withRequestContext, type RequestContext } from '../log';
import { metricsRegistry, routeClass } from '../metrics';
import { flushBatchedWrites } from './batchedWrites';
import {
  CALLER_HEADER,
  type PagesAnswer,
  type PagesReady,
  type PagesRequest,
  type PagesThreadData,
} from './pagesProtocol';

/** An answer of the pages thread: its headers carry the caller its request context noted. */
class PagesResponse extends http.ServerResponse {
  context: RequestContext | undefined;
  // Node calls writeHead for implicit headers too (the first write): the one place every answer passes.
  override writeHead(...args: [statusCode: number, ...rest: unknown[]]): this {
    if (this.context?.caller) this.setHeader(CALLER_HEADER, JSON.stringify(this.context.caller));
    return Reflect.apply(super.writeHead, this, args) as this;
  }
}

/** The kinds of figure a thread counts for itself (prom-client's JSON names them so; its typings say a number). */
const COUNTED = new Set(['counter', 'histogram']);

/** Counters and histograms only: what this thread counted. Gauges and the process's figures are the edge's. */
async function counted() {
  const all = await metricsRegistry.getMetricsAsJSON();
  return all.filter((m) => m.name.startsWith('hub_') && COUNTED.has(m.type as unknown as string));
}

async function main({ pages }: PagesThreadData) {
  const port = parentPort!;
  const app = next({ dev: false, dir: pages.dir, hostname: pages.hostname, port: pages.port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = http.createServer({ ServerResponse: PagesResponse }, (req, res) => {
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const context = { requestId: requestIdFrom(req.headers['x-request-id']), route: routeClass(pathname) };
    res.context = context;
    withRequestContext(context, () => void handle(req, res));
  });
  server.keepAliveTimeout = 65_000; // the edge keeps its connections to this server open: not cut under it
  async function drain() {
    server.close();
    server.closeAllConnections(); // the edge has finished its requests: what is left is idle
    await flushBatchedWrites();
    await closeDatabase().catch((err) => logger.error({ err: (err as Error).message }, 'database not closed cleanly'));
    await endLogs();
  }
  port.on('message', (request: PagesRequest) => {
    const answer = request.op === 'metrics' ? counted().then((metrics) => ({ metrics })) : drain().then(() => ({}));
    void answer.then((fields) => port.postMessage({ id: request.id, ...fields } satisfies PagesAnswer));
  });
  server.listen(pages.socketPath, () => port.postMessage({ ready: true } satisfies PagesReady));
}

main(workerData as PagesThreadData).catch((err) => {
  logger.fatal({ err: err instanceof Error ? err.message : String(err) }, 'the pages thread could not start');
  process.exit(1); // in a worker: ends this thread, and the edge's thread reports it
});
