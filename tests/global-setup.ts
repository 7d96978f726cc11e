/**
 * Once per `vitest run`, before any test file (vitest globalSetup):
 *  - compiles the processes the tests start (tests/compiled.ts) once, instead of a TypeScript loader per spawn;
 *  - prepares one migrated database that every test file copies instead of migrating its own
 *    (scripts/test-databases.ts): on PostgreSQL (DATABASE_URL) a template database (tests/setup.ts creates each
 *    file's database from it), on embedded PGlite a snapshot of a migrated data directory
 *    (HUB_TEST_PGLITE_SNAPSHOT, server/db/client.ts).
 * Each file still gets a database of its own; only the work of creating one is shared.
 */
import path from 'node:path';
import { ensureBuilt, TARGETS } from '../scripts/build-server.mjs';
import { migratedPgliteSnapshot, migratedTemplateDatabase } from '../scripts/test-databases';

const migrations = { folder: path.resolve(import.meta.dirname, '..', 'drizzle'), prefix: 'hub_test' };

export default async function setup() {
  for (const name of Object.keys(TARGETS) as (keyof typeof TARGETS)[]) await ensureBuilt(name);
  // Also on PostgreSQL: the tests of data folders seed theirs from it (seedDataFolder).
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  process.env.HUB_TEST_PGLITE_SNAPSHOT = await migratedPgliteSnapshot(migrations, { pg_trgm });
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const template = await migratedTemplateDatabase(serverUrl, migrations);
    process.env.HUB_TEST_TEMPLATE_DATABASE = template.name;
    return template.drop;
  }
}
