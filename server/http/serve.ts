/**
 * The production server (`npm start`; started as server/http/command.mjs says): one Node http server
 * in front of Next.js.
 * The machine-facing endpoints that Core instances and AI assistants call all the time — REST /api/v1/*
 * and /mcp — go straight to the Hub's handlers (the same functions the Next routes export), skipping
 * Next's page and route machinery (a few milliseconds a request on a small machine). Everything else
 * (dashboard, sign-in, /api/trpc, the OpenAPI document, JWKS) is served by Next.js as usual.
 *
 * Environment: PORT (3000), HOSTNAME (0.0.0.0), and the Hub's configuration (README).
 */
import http from 'node:http';
import path from 'node:path';
import next from 'next';
import { errorResponse, TransportError } from '../api/errors';
import { REST_PREFIX } from '../api/rest';
import { closeDatabase, getDatabase } from '../db/client';
import { flushDownloads } from '../domain/catalog/downloads';
import { handleMcp } from '../mcp/proxy';
import { serveRest, serveWithFetchHandler, type FetchHandler } from './bridge';

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOSTNAME ?? '0.0.0.0';
const dir = path.resolve(import.meta.dirname, '../..');

const MCP_METHODS = new Set(['GET', 'POST', 'DELETE']);
const methodNotAllowed: FetchHandler = () =>
  errorResponse(new TransportError('METHOD_NOT_SUPPORTED', 'Use GET, POST or DELETE on /mcp'), '/mcp', () => ({ allow: 'GET, POST, DELETE' }));

const isRest = (pathname: string) => pathname.startsWith(`${REST_PREFIX}/`) && pathname !== `${REST_PREFIX}/openapi.json`;

async function main() {
  const database = await getDatabase(); // migrations first: fail the start, not a request
  const app = next({ dev: false, dir, hostname, port });
  const handleWithNext = app.getRequestHandler();
  await app.prepare();

  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    if (isRest(pathname)) serveRest(req, res);
    else if (pathname === '/mcp') {
      void serveWithFetchHandler(MCP_METHODS.has(req.method ?? 'GET') ? handleMcp : methodNotAllowed, req, res, `http://${req.headers.host ?? `localhost:${port}`}`);
    } else void handleWithNext(req, res);
  });
  // Longer than common client and load-balancer idle timeouts, so kept-alive connections are not cut under them.
  server.keepAliveTimeout = 65_000;
  server.listen(port, hostname, () => console.log(`[hub] listening on http://${hostname}:${port} (${database.kind})`));

  // This entry point owns the process's lifecycle: stop taking requests, write what is batched, close the database.
  const stop = (signal: string) => {
    console.log(`[hub] ${signal}: closing`);
    server.close();
    server.closeIdleConnections();
    flushDownloads()
      .catch((err) => console.error('[hub] download counts not written:', (err as Error).message))
      .then(() => closeDatabase())
      .catch((err) => console.error('[hub] database not closed cleanly:', (err as Error).message))
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  console.error('[hub] could not start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
