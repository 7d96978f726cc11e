/**
 * Runs before each test file, in the worker that runs it (files share workers): gives the file an isolated database.
 * DATABASE_URL set → a fresh database on that PostgreSQL server, dropped afterwards;
 * unset → embedded PGlite in memory.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { reloadConfig } from '../server/config';
import { closeDatabase } from '../server/db/client';
import { flushBatchedWrites } from '../server/http/batchedWrites';

// Files share a worker (vitest.config.ts, isolate: false): what a file sets in the environment ends with it.
// Registered first, so it runs after every other afterAll of the file (hooks run as a stack).
const environmentAtStart = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in environmentAtStart)) delete process.env[name];
  Object.assign(process.env, environmentAtStart);
  reloadConfig();
});
// The configuration is parsed once (server/config.ts): read again before each test what the file set at its top or in
// beforeAll, and after each what its afterEach put back (these run after the file's own: hooks run as a stack).
// A test that changes the environment in its body calls reloadConfig() itself.
beforeEach(() => void reloadConfig());
afterEach(() => void reloadConfig());

process.env.HUB_URL = 'http://hub.test';
// The suite sends thousands of calls from one (unknown) address; rate-limit.test.ts sets its own limits.
for (const name of ['ANONYMOUS', 'CREDENTIAL', 'ADDRESS', 'FAILED_AUTH'])
  process.env[`HUB_RATE_LIMIT_${name}`] ??= '1000000';

const serverUrl = process.env.DATABASE_URL;
if (serverUrl) {
  // A database server needs the master secret from the environment (server/db/sealed.ts).
  process.env.HUB_SECRET ??= 'hub-test-master-secret-' + randomBytes(8).toString('hex');
  const name = `hub_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  // A copy of the run's migrated template (tests/global-setup.ts): no migration per file.
  const template = process.env.HUB_TEST_TEMPLATE_DATABASE;
  await admin.unsafe(template ? `create database ${name} template ${template}` : `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  afterAll(async () => {
    await closeFileDatabase();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
} else {
  process.env.HUB_DATA_DIR = 'memory://';
  afterAll(closeFileDatabase);
}
reloadConfig();

/** What this file's batched writes hold goes to its own database, not to the next file's in this worker. */
async function closeFileDatabase() {
  await flushBatchedWrites();
  await closeDatabase();
}
