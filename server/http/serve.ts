/**
 * The production server (`npm start`; started as scripts/serve-command.mjs says): the Hub's edge
 * (server/http/edge.ts: health checks, REST /api/v1/* and /mcp straight from their handlers, request ids,
 * access log, security headers, SIGTERM drain) in front of Next.js, which serves everything else
 * (dashboard, sign-in, /api/trpc, the OpenAPI document, JWKS): on PostgreSQL from a thread of its own (pages.ts).
 *
 * Settings: PORT (3000), HOSTNAME (0.0.0.0) and the rest of the Hub's configuration (server/config.ts).
 * On the embedded database it also serves that database on a socket in the data folder, for the CLI and
 * psql, and loads the demo catalog on its first start (server/http/embedded.ts).
 */
import './configAtStart'; // first: every setting parsed, or one line naming the one that cannot be used
import path from 'node:path';
import { config } from '../config';
import { getDatabase } from '../db/client';
import { logger } from '../log';
import { createEdge, exitOnSignals } from './edge';
import { prepareEmbeddedDatabase } from './embedded';
import { startPages } from './pages';

const dir = path.resolve(import.meta.dirname, '../..');

async function main() {
  const { port, hostname } = config;
  const database = await getDatabase(); // migrations first: fail the start, not a request
  await prepareEmbeddedDatabase(database); // embedded: share it with the CLI and psql; demo catalog on first start
  // Beside this file's bundle (dist/server/serve.mjs), built with it (scripts/build-server.mjs).
  const thread = new URL('./pages-thread.mjs', import.meta.url);
  const pages = await startPages(database, { dir, hostname, port, thread });
  const edge = createEdge(database, pages);
  exitOnSignals(edge);
  edge.server.listen(port, hostname, () => {
    const bound = edge.server.address();
    const url = `http://${hostname}:${typeof bound === 'object' && bound ? bound.port : port}`;
    logger.info({ url, database: database.kind }, 'listening');
  });
}

main().catch((err) => {
  logger.fatal({ err: err instanceof Error ? err.message : String(err) }, 'could not start');
  process.exit(1);
});
