/**
 * The production server (`npm start`; started as scripts/serve-command.mjs says): the Hub's edge
 * (server/http/edge.ts: health checks, REST /api/v1/* and /mcp straight from their handlers, request ids,
 * access log, security headers, SIGTERM drain) in front of Next.js, which serves everything else
 * (dashboard, sign-in, /api/trpc, the OpenAPI document, JWKS).
 *
 * Settings: PORT (3000), HOSTNAME (0.0.0.0) and the rest of the Hub's configuration (server/config.ts).
 * On the embedded database it also serves that database on a socket in the data folder, for the CLI and
 * psql, and loads the demo catalog on its first start (server/http/embedded.ts).
 */
import './configAtStart'; // first: every setting parsed, or one line naming the one that cannot be used
import path from 'node:path';
import next from 'next';
import { config } from '../config';
import { getDatabase } from '../db/client';
import { logger } from '../log';
import { createEdge, exitOnSignals } from './edge';
import { prepareEmbeddedDatabase } from './embedded';

const dir = path.resolve(import.meta.dirname, '../..');

async function main() {
  const { port, hostname } = config;
  const database = await getDatabase(); // migrations first: fail the start, not a request
  await prepareEmbeddedDatabase(database); // embedded: share it with the CLI and psql; demo catalog on first start
  const app = next({ dev: false, dir, hostname, port });
  const handleWithNext = app.getRequestHandler();
  await app.prepare();
  const edge = createEdge(database, (req, res) => void handleWithNext(req, res));
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
