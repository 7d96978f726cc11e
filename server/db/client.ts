/**
 * One database handle per process: postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
 * Both speak the same drizzle query builder; migrations from ./drizzle are applied on first open, then
 * secrets sealed in an older format are re-sealed (sealed.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import { DataFolderInUse, lockDataFolder, preparePrivateDataFolder, restrictDataFolder } from '@shared/data-folder';
import { openInMemory } from '@shared/pglite-memory';
import type { Db, Queryable } from './types';
import * as schema from './schema';
import { config } from '../config';
import { currentWork, logger } from '../log';
import { bump, bumpAll, generation, INVALIDATION_CHANNEL } from './invalidation';
import { MASTER_SECRET_REQUIRED, MasterSecretMismatch, MasterSecretRequired, prepareSealing } from './sealed';
import { embeddedSocketPath, EMBEDDED_SOCKET_PORT } from './socket-path';
import type { SharedDatabase } from './socket';
import type { PGlite } from '@electric-sql/pglite';
import { EmbeddedEngine } from './embedded-engine';
import { ReadReplicas, type ReplicaStatus } from './replicas';
import { gaugeOf, hubMetrics } from '../metrics';

export type { Db, Queryable, Schema, Tx } from './types';

export interface Database {
  db: Db;
  /** 'pglite' also when this process reaches a running Hub's embedded database through its socket. */
  kind: 'postgres' | 'pglite';
  /** Reached through a running Hub's socket (that Hub holds the data folder). */
  throughSocket?: boolean;
  close(): Promise<void>;
  /**
   * Embedded database in a data folder, opened by this process: serve it on the folder's socket for the CLI
   * and psql while this process runs (socket.ts); answers the socket's path. Stopped by close().
   */
  share?(): Promise<string>;
  /**
   * Embedded database in a data folder: whether the demo catalog is still to be offered (the folder was
   * created as a new database and no Hub server has started on it yet), and the call that records it was.
   */
  demoCatalogPending?(): boolean;
  demoCatalogOffered?(): void;
  /** DATABASE_READ_URL: the replicas that serve catalog reads (replicas.ts). */
  replicas?: ReadReplicas;
}

const MIGRATION_LOCK = 72_620_001;

/**
 * Statement observers (tests: which tables a page reads). Empty in production, where a statement costs one
 * check of an empty set.
 */
const statementListeners = new Set<(statement: string) => void>();

/** Calls `listener` with the SQL of every statement issued through the query builder; returns the unsubscribe. */
export function observeStatements(listener: (statement: string) => void): () => void {
  statementListeners.add(listener);
  return () => statementListeners.delete(listener);
}

function migrationsFolder() {
  return path.join(process.cwd(), 'drizzle');
}

/** A running Hub's embedded database, reached through its data folder's socket (socket.ts). */
interface SharedEmbedded {
  socketDir: string;
}

/** Counts the statements a drizzle handle runs (hub_db_statements_total; BEGIN and COMMIT are not counted). */
function statementLogger(pool: string) {
  const counter = hubMetrics.statementCounter(pool);
  return {
    logQuery(statement: string) {
      counter.inc(currentWork());
      if (statementListeners.size > 0) for (const listener of statementListeners) listener(statement);
    },
  };
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

async function openPostgres(url: string, shared?: SharedEmbedded): Promise<Database> {
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

/** The refusal when a live process holds the data folder (a running Hub, or another CLI command). */
const inUseMessage = (dir: string, holder: number) =>
  `The embedded database in ${dir} is in use by process ${holder}. ` +
  'Only one Hub process may open it; stop that process or set DATABASE_URL to use PostgreSQL.';

/**
 * PGlite has no lock of its own on its data directory (two processes opening it would corrupt it), and writes
 * its files 0666 under the process umask: owner-only umask first, the folder narrowed, then the lock.
 */
function lockDataDir(dir: string) {
  preparePrivateDataFolder(dir, (count, sample) =>
    logger.warn(
      { data_dir: dir, changed: count, sample },
      'data folder was readable by other users: now owner-only (0700/0600)',
    ),
  );
  return lockDataFolder(dir, { lockFile: 'hub.lock', inUseMessage });
}

/** Written when a data folder becomes a new database; removed once a Hub server has offered the demo catalog. */
const DEMO_PENDING_FILE = 'hub-demo-catalog-pending';

/**
 * The embedded database of a data folder. When a running Hub holds the folder, this process (the CLI)
 * reaches the same database through the socket that Hub serves in the folder (socket.ts).
 */
async function openEmbedded(dataDir: string): Promise<Database> {
  if (dataDir === 'memory://') return openPglite(undefined, () => {});
  const dir = path.resolve(dataDir);
  let release: () => void;
  try {
    release = lockDataDir(dir);
  } catch (err) {
    if (!(err instanceof DataFolderInUse) || !fs.existsSync(embeddedSocketPath(dir))) throw err;
    try {
      return await openPostgres('', { socketDir: dir });
    } catch (socketErr) {
      if (socketErr instanceof MasterSecretMismatch) throw socketErr;
      // A holder that does not share the folder (another CLI command), or a socket left by a crash.
      throw new DataFolderInUse(dir, err.holder, inUseMessage(dir, err.holder), socketErr);
    }
  }
  fs.rmSync(embeddedSocketPath(dir), { force: true }); // a socket left by a Hub that was killed
  return openPglite(dir, release);
}

async function openPglite(dir: string | undefined, release: () => void): Promise<Database> {
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  // Always a path to the file, never the folder (`dir && …` could be): Next's build traces what fs.existsSync reads
  // below, and a folder under the working directory reads to it as "the whole project".
  const pendingFile = dir === undefined ? undefined : path.join(dir, DEMO_PENDING_FILE);
  let shared: SharedDatabase | undefined;
  let client: PGlite | EmbeddedEngine | undefined;
  try {
    const isNew = dir !== undefined && !fs.existsSync(path.join(dir, 'PG_VERSION'));
    // A data folder: on a thread of its own, so that no statement stops this one (embedded-engine.ts).
    client = dir
      ? await EmbeddedEngine.open(dir, {
          statementTimeoutMs: config.databaseStatementTimeoutMs,
          onRestart: (owner, reason) => {
            logger.error(
              { data_dir: dir, statement_of: owner === 0 ? 'hub' : 'socket client', reason },
              'embedded database restarted: a statement ran past HUB_DB_STATEMENT_TIMEOUT_MS (committed changes are kept)',
            );
            shared?.restarted(owner, reason);
            bumpAll();
          },
        })
      : await openInMemory({
          // Tests (tests/global-setup.ts): a migrated snapshot instead of initdb and every migration per database.
          snapshot: config.testPgliteSnapshot,
          extensions: { pg_trgm: (await import('@electric-sql/pglite/contrib/pg_trgm')).pg_trgm },
        });
    if (isNew && pendingFile) fs.writeFileSync(pendingFile, '');
    const migrating = drizzle(client as PGlite, { schema });
    await migrate(migrating, { migrationsFolder: migrationsFolder() });
    await prepareSealing(migrating as unknown as Db, { kind: 'embedded', dir });
    if (dir) restrictDataFolder(dir); // PGlite creates its files 0666 whatever the umask (data-folder package)
  } catch (err) {
    await client?.close().catch(() => {});
    release();
    throw err;
  }
  const pg = client;
  return {
    db: drizzle(pg as PGlite, { schema, logger: statementLogger('primary') }) as unknown as Db,
    kind: 'pglite',
    close: async () => {
      await shared?.close();
      await pg.close();
      release();
    },
    ...(pg instanceof EmbeddedEngine &&
      dir && {
        share: async () => {
          // The Hub's own commits' notifications; a socket client's are read from its answers (socket.ts).
          await pg.listen(INVALIDATION_CHANNEL, bump);
          const { shareEmbeddedDatabase } = await import('./socket');
          shared ??= await shareEmbeddedDatabase(pg, dir, {
            onNotification: (channel, topic) => channel === INVALIDATION_CHANNEL && bump(topic),
          });
          return shared.path;
        },
        demoCatalogPending: () => fs.existsSync(pendingFile!),
        demoCatalogOffered: () => fs.rmSync(pendingFile!, { force: true }),
      }),
  };
}

// On globalThis: in `npm start` the edge's code and Next.js's bundled copy of it share one database (sealed.ts).
const holder = globalThis as unknown as { __hubDatabase?: Promise<Database>; __hubDatabaseOpenings?: number };
/** The database once open (for synchronous readers: /readyz, /metrics). */
let opened: Database | undefined;

/** How many times this process has opened its database: state read from it is stale once this changes. */
export function databaseOpenings(): number {
  return holder.__hubDatabaseOpenings ?? 0;
}

/** The process-wide database, opened (and migrated) on first use. */
export function getDatabase(): Promise<Database> {
  if (!holder.__hubDatabase) {
    // Before any connection: a database server never holds the key to its own secrets (sealed.ts).
    if (config.databaseUrl && !config.secret) return Promise.reject(new MasterSecretRequired(MASTER_SECRET_REQUIRED));
    const opening = config.databaseUrl ? openPostgres(config.databaseUrl) : openEmbedded(config.dataDir);
    holder.__hubDatabase = opening;
    holder.__hubDatabaseOpenings = databaseOpenings() + 1;
    // What this process cached came from another database, or from this one before it was closed.
    bumpAll();
    opening
      .then((database) => (opened = database))
      .catch(() => {
        if (holder.__hubDatabase === opening) holder.__hubDatabase = undefined;
      });
  }
  return holder.__hubDatabase;
}

export async function getDb(): Promise<Db> {
  return (await getDatabase()).db;
}

/** Whether this process has the database open (or opening). Background writers use it never to reopen a closed one. */
export function databaseIsOpen(): boolean {
  return holder.__hubDatabase !== undefined;
}

export async function closeDatabase() {
  const open = holder.__hubDatabase;
  holder.__hubDatabase = undefined;
  opened = undefined;
  if (open) await (await open).close();
}

/** The answer of /readyz: the database opened (so migrated) and answering a trivial query now. */
export async function checkDatabase(timeoutMs = 1_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([getDb().then((db) => db.execute(sql`select 1`)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a failure means the database is unavailable (503 + Retry-After, not a 500): @shared/ops. */
export { isDatabaseUnavailable } from '@shared/ops';

/** A statement cancelled by statement_timeout (SQLSTATE 57014). */
export function isStatementTimeout(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === '57014') return true;
  }
  return false;
}

/** Runs a raw drizzle `sql` query and returns its rows (postgres.js answers an array, PGlite `{rows}`). */
export async function execRows<T>(q: Queryable, query: SQL): Promise<T[]> {
  const result = (await q.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** Where a catalog read may run: the primary, or (for anonymous and instance-key callers) a replica. */
export type ReadSource = 'primary' | 'replica';

/**
 * Runs a catalog read on a replica that has replayed every change this process knows of (and `need`, a WAL
 * position), or on the primary. A failure on the replica runs it again on the primary (replicas.ts).
 */
export async function readCatalog<T>(source: ReadSource, read: (db: Db) => Promise<T>, need?: bigint): Promise<T> {
  const database = await getDatabase();
  const replica = source === 'replica' && database.replicas ? await database.replicas.choose(need) : null;
  if (!replica) {
    if (source === 'replica') hubMetrics.catalogRead('primary');
    return read(database.db);
  }
  try {
    const result = await read(replica.db);
    hubMetrics.catalogRead('replica');
    return result;
  } catch (err) {
    replica.fail(err);
    hubMetrics.catalogRead('fallback');
    return read(database.db);
  }
}

gaugeOf(
  'hub_cache_generation',
  'Generation of the in-process caches (moves on every change announced)',
  { topic: 'catalog' },
  () => generation('catalog'),
);
gaugeOf(
  'hub_cache_generation',
  'Generation of the in-process caches (moves on every change announced)',
  { topic: 'auth' },
  () => generation('auth'),
);

/** Whether catalog reads may go to replicas in this process (then `updates` needs its watermark's WAL position). */
export async function hasReadReplicas(): Promise<boolean> {
  return (await getDatabase()).replicas !== undefined;
}

/** /readyz: each replica's state, or undefined without replicas. */
export function replicaStatus(): ReplicaStatus[] | undefined {
  return opened?.replicas?.status();
}
