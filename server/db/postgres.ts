/**
 * The database on a PostgreSQL server (DATABASE_URL, through a pooler or not, with read replicas), or a running
 * Hub's embedded database reached through its data folder's socket: migrated under a lock, then sealed secrets checked.
 */
import { config } from '../config';
import { logger } from '../log';
import { gaugeOf } from '../metrics';
import { migrationsFolder, type Database } from './database';
import { bump, bumpAll, INVALIDATION_CHANNEL } from './invalidation';
import { ReadReplicas } from './replicas';
import { prepareSealing } from './sealed';
import { EMBEDDED_SOCKET_PORT } from './socket-path';
import { statementLogger } from './statements';
import * as schema from './schema';
import type { Db } from './types';

const MIGRATION_LOCK = 72_620_001;

/** A running Hub's embedded database, reached through its data folder's socket (socket.ts). */
interface SharedEmbedded {
  socketDir: string;
}

/** What every Hub connection to PostgreSQL (or to a pooler in front of it) is opened with. */
export function connectionOptions(mode: 'session' | 'transaction', max: number) {
  return {
    max,
    onnotice: () => {},
    // An unreachable server fails a request within a second or so (then 503, see isDatabaseUnavailable), not a hang.
    connect_timeout: config.databaseConnectTimeoutMs / 1000,
    // Queries wait for a reconnect attempt; the default backoff grows to 20 s (the 3–15 s hangs of an outage).
    // A short constant retry fails them fast (ECONNREFUSED → 503) and recovers as soon as the server is back.
    backoff: () => 0.25,
    // Transaction pooling: a named statement would be prepared on one server connection and executed on another.
    prepare: mode === 'session',
    // Transaction pooling: one query at a time per connection. postgres.js otherwise pipelines the next query behind
    // one still running; PgBouncer (1.18) hands the server connection back at the first ReadyForQuery, and the answers
    // of the query behind it arrive for no client ("got packet … when not linked"): that query, and every one queued
    // behind it on that connection, waits forever. The fleet bench hung this way within seconds.
    max_pipeline: mode === 'transaction' ? 0 : 100,
    // Per connection: no statement holds a connection (and a request) longer than this. No JIT: the Hub's
    // queries are short index-driven reads whose estimated cost can still pass jit_above_cost (100,000),
    // and compiling them costs 100–300 ms (PostgreSQL 15 with LLVM), far more than running them.
    // Behind a transaction pooler the pooler's server connections carry these (pgbouncer.ini connect_query, or
    // ALTER ROLE … SET): a startup parameter would be refused or ignored by PgBouncer, and SET would leak.
    connection:
      mode === 'session'
        ? { application_name: 'hub', statement_timeout: config.databaseStatementTimeoutMs, jit: 'off' }
        : { application_name: 'hub' },
  };
}
export async function openPostgres(url: string, shared?: SharedEmbedded): Promise<Database> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const mode = shared ? 'session' : config.databasePoolMode;
  const directUrl = shared ? undefined : config.databaseDirectUrl;
  if (mode === 'transaction' && !directUrl) {
    throw new Error(
      'DATABASE_POOL_MODE=transaction needs DATABASE_DIRECT_URL: the migration lock and LISTEN need a session of their own, ' +
        'which a transaction pooler does not keep. Set DATABASE_DIRECT_URL to a connection string that reaches PostgreSQL ' +
        'without the pooler (or DATABASE_POOL_MODE=session if DATABASE_URL is not a transaction pooler).',
    );
  }
  const client = shared
    ? // One backend behind the socket: few connections (two: the migration lock's and the migration's),
      // unnamed statements (named ones would live on in the Hub's session), no session settings of ours.
      postgres({
        host: shared.socketDir,
        port: EMBEDDED_SOCKET_PORT,
        user: 'postgres',
        database: 'postgres',
        max: 2,
        prepare: false,
        onnotice: () => {},
      })
    : postgres(url, connectionOptions(mode, config.databasePoolSize));
  // Session-level work (the migration lock, LISTEN) on a direct connection when there is one: two connections
  // while migrating, then the listening one alone (idle ones close).
  const direct = directUrl
    ? postgres(directUrl, {
        ...connectionOptions('session', 2),
        idle_timeout: 5,
        connection: { application_name: 'hub-direct' },
      })
    : client;
  const db = drizzle(client, { schema, logger: statementLogger('primary') }) as unknown as Db;
  gaugeOf('hub_db_pool_size', 'Most connections of a pool (to the pooler or the server)', { pool: 'primary' }, () =>
    shared ? 2 : config.databasePoolSize,
  );
  try {
    // Several Hub processes may start at once: one migrates, the others wait for it.
    const lock = await direct.reserve();
    try {
      await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
      await migrate(drizzle(direct, { schema }), { migrationsFolder: migrationsFolder() });
      await prepareSealing(
        drizzle(direct, { schema }) as unknown as Db,
        shared ? { kind: 'embedded', dir: shared.socketDir } : { kind: 'server' },
      );
    } finally {
      await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
      lock.release();
    }
  } catch (err) {
    await Promise.all([client.end({ timeout: 1 }), direct !== client && direct.end({ timeout: 1 })]).catch(() => {});
    throw err;
  }
  if (mode === 'transaction') await checkPoolerSettings(client);
  const readUrls = shared ? [] : config.databaseReadUrls;
  const replicas = readUrls.length
    ? new ReadReplicas(
        client,
        readUrls.map((readUrl) => {
          const replica = postgres(readUrl, {
            ...connectionOptions(mode, config.databasePoolSize),
            connection: { application_name: 'hub-read' },
          });
          return {
            url: readUrl,
            client: replica,
            db: drizzle(replica, { schema, logger: statementLogger('replica') }) as unknown as Db,
          };
        }),
        config.databaseReadMaxLagMs,
      )
    : undefined;
  if (replicas) await replicas.start();
  // Other processes' changes: drop this process's cached data when they commit (see invalidation.ts).
  // Not through a running Hub's socket: this process is a short CLI run, and the Hub's session is shared.
  // With replicas the catalog fence moves first (replicas.ts), then the caches' generation.
  if (!shared) {
    await direct.listen(
      INVALIDATION_CHANNEL,
      (topic) => (replicas && topic === 'catalog' ? void replicas.advanceFence().then(() => bump(topic)) : bump(topic)),
      () => (replicas ? void replicas.advanceFence().then(bumpAll) : bumpAll()),
    );
  }
  return {
    db,
    kind: shared ? 'pglite' : 'postgres',
    replicas,
    ...(shared && { throughSocket: true }),
    close: async () => {
      await replicas?.close();
      await Promise.all([client.end({ timeout: 5 }), direct !== client && direct.end({ timeout: 5 })]);
    },
  };
}

/**
 * Behind a transaction pooler the pooler sets statement_timeout and jit on its server connections: say so at
 * start when it does not (the Hub still works, but a runaway statement holds a server connection).
 */
async function checkPoolerSettings(client: import('postgres').Sql) {
  const [row] = await client.unsafe(
    `select current_setting('statement_timeout') as timeout, current_setting('jit') as jit`,
  );
  if (row?.timeout === '0' || row?.jit === 'on') {
    logger.warn(
      { statement_timeout: row.timeout, jit: row.jit },
      'DATABASE_POOL_MODE=transaction: the pooler does not set statement_timeout and jit = off on its server connections; ' +
        'set them in pgbouncer.ini (connect_query) or with ALTER ROLE … SET (docs/operating-at-scale.md)',
    );
  }
}
