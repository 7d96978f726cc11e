/**
 * What a Hub server does on the embedded database (a data folder, DATABASE_URL unset) before it listens:
 *  - shares the database on the folder's socket, so `npm run hub -- …` and psql work while it runs
 *    (server/db/socket.ts);
 *  - on its first start on a new database, loads the demo catalog (what `hub seed` loads), unless
 *    HUB_SEED_DEMO=false. Never on PostgreSQL.
 * Run by server/http/serve.ts (`npm start`) and by the tests' Hub process (tests/fixtures/hub-process.ts).
 */
import type { Database } from '../db/client';
import { config } from '../config';
import { seedDemoCatalog } from '../api/demoCatalog';
import { logger } from '../log';

/** Whether to load the demo catalog now. */
export function shouldSeedDemo(
  database: Pick<Database, 'kind' | 'demoCatalogPending'>,
  seedDemo = config.seedDemo,
): boolean {
  return database.kind === 'pglite' && !!database.demoCatalogPending?.() && seedDemo;
}

export async function prepareEmbeddedDatabase(database: Database): Promise<void> {
  if (!database.share) return; // PostgreSQL, or an in-memory database
  const socketPath = await database.share().catch((err: Error) => {
    // The Hub itself works without it; only the CLI and psql cannot reach the database while it runs.
    logger.warn({ err: err.message }, 'embedded database not shared: the CLI and psql need the Hub stopped');
    return null;
  });
  if (socketPath) {
    const host = socketPath.slice(0, socketPath.lastIndexOf('/'));
    logger.info(
      { socket: socketPath, psql: `psql "host=${host} user=postgres dbname=postgres"` },
      'embedded database shared with the CLI and psql on a local socket',
    );
  }
  if (!database.demoCatalogPending?.()) return;
  if (shouldSeedDemo(database)) {
    const result = await seedDemoCatalog();
    logger.info({ ...result }, 'new embedded database: loaded the demo catalog (HUB_SEED_DEMO=false starts empty)');
  } else {
    logger.info('new embedded database: demo catalog not loaded (HUB_SEED_DEMO=false)');
  }
  database.demoCatalogOffered?.();
}
