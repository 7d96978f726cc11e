/**
 * Once per run (vitest globalSetup): compile Core's CLI, which tests/process.test.ts starts as production
 * does, and prepare one migrated database every test database starts from (../../scripts/test-databases.ts):
 * on embedded PGlite a snapshot (CORE_TEST_PGLITE_SNAPSHOT, src/db/client.ts) instead of running initdb and
 * the migrations each time; on PostgreSQL (CORE_TEST_DATABASE_URL) a template database that tests/helpers.ts copies.
 */
import path from 'node:path';
import { ensureBuilt } from '../../scripts/build-server.mjs';
import { migratedPgliteSnapshot, migratedTemplateDatabase } from '../../scripts/test-databases';

const migrations = { folder: path.resolve(import.meta.dirname, '..', 'drizzle'), prefix: 'core_test' };

export default async function setup() {
  await ensureBuilt('core');
  // Also on PostgreSQL: the tests of data folders seed theirs from it (seedDataFolder).
  process.env.CORE_TEST_PGLITE_SNAPSHOT = await migratedPgliteSnapshot(migrations);
  const server = process.env.CORE_TEST_DATABASE_URL;
  if (server) {
    const template = await migratedTemplateDatabase(server, migrations);
    process.env.CORE_TEST_TEMPLATE_DATABASE = template.name;
    return template.drop;
  }
}
