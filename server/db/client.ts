/**
 * One database handle per process: postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
 * Both speak the same drizzle query builder; migrations from ./drizzle are applied on first open, then
 * secrets sealed in an older format are re-sealed (sealed.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import type { Db, Queryable } from './types';
import * as schema from './schema';
import { config } from '../config';
import { bump, bumpAll, INVALIDATION_CHANNEL } from './invalidation';
import { resealLegacySecrets } from './sealed';
import { embeddedSocketPath, EMBEDDED_SOCKET_PORT } from './socket-path';
import type { SharedDatabase } from './socket';

export type { Db, Queryable, Schema, Tx } from './types';

export interface Database {
  db: Db;
  /** 'pglite' also when this process reaches a running Hub's embedded database through its socket. */
  kind: 'postgres' | 'pglite';
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
}

const MIGRATION_LOCK = 72_620_001;

function migrationsFolder() {
  return path.join(process.cwd(), 'drizzle');
}

/** A running Hub's embedded database, reached through its data folder's socket (socket.ts). */
interface SharedEmbedded {
  socketDir: string;
}

async function openPostgres(url: string, shared?: SharedEmbedded): Promise<Database> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const client = shared
    ? // One backend behind the socket: few connections (two: the migration lock's and the migration's),
      // unnamed statements (named ones would live on in the Hub's session), no session settings of ours.
      postgres({ host: shared.socketDir, port: EMBEDDED_SOCKET_PORT, user: 'postgres', database: 'postgres', max: 2, prepare: false, onnotice: () => {} })
    : postgres(url, {
        max: config.databasePoolSize,
        onnotice: () => {},
        // An unreachable server fails a request within a second or so (then 503, see isDatabaseUnavailable), not a hang.
        connect_timeout: config.databaseConnectTimeoutMs / 1000,
        // Queries wait for a reconnect attempt; the default backoff grows to 20 s (the 3–15 s hangs of an outage).
        // A short constant retry fails them fast (ECONNREFUSED → 503) and recovers as soon as the server is back.
        backoff: () => 0.25,
        // Per connection: no statement holds a connection (and a request) longer than this. No JIT: the Hub's
        // queries are short index-driven reads whose estimated cost can still pass jit_above_cost (100,000),
        // and compiling them costs 100–300 ms (PostgreSQL 15 with LLVM), far more than running them.
        connection: { application_name: 'hub', statement_timeout: config.databaseStatementTimeoutMs, jit: 'off' },
      });
  const db = drizzle(client, { schema }) as unknown as Db;
  // Several Hub processes may start at once: one migrates, the others wait for it.
  const lock = await client.reserve();
  try {
    await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(client, { schema }), { migrationsFolder: migrationsFolder() });
    await resealLegacySecrets(db);
  } finally {
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    lock.release();
  }
  // Other processes' changes: drop this process's cached data when they commit (see invalidation.ts).
  // Not through a running Hub's socket: this process is a short CLI run, and the Hub's session is shared.
  if (!shared) await client.listen(INVALIDATION_CHANNEL, bump, bumpAll);
  return {
    db,
    kind: shared ? 'pglite' : 'postgres',
    close: () => client.end({ timeout: 5 }),
  };
}

/** The data folder is locked by another live process (a running Hub, or another CLI command). */
class DataDirInUse extends Error {
  constructor(
    readonly dir: string,
    readonly holder: number,
    cause?: unknown,
  ) {
    super(
      `The embedded database in ${dir} is in use by process ${holder}. ` +
        'Only one Hub process may open it; stop that process or set DATABASE_URL to use PostgreSQL.',
      { cause },
    );
  }
}

/** PGlite has no lock of its own on its data directory: two processes opening it would corrupt it. */
function lockDataDir(dir: string) {
  fs.mkdirSync(dir, { recursive: true });
  const lockPath = path.join(dir, 'hub.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      const release = () => {
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(lockPath, 'utf8'));
      if (holder && holder !== process.pid && isAlive(holder)) throw new DataDirInUse(dir, holder, err);
      fs.rmSync(lockPath, { force: true }); // stale lock of a dead process
    }
  }
  throw new Error(`Could not lock the embedded database in ${dir}`);
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
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
    if (!(err instanceof DataDirInUse) || !fs.existsSync(embeddedSocketPath(dir))) throw err;
    try {
      return await openPostgres('', { socketDir: dir });
    } catch (socketErr) {
      // A holder that does not share the folder (another CLI command), or a socket left by a crash.
      throw new DataDirInUse(dir, err.holder, socketErr);
    }
  }
  fs.rmSync(embeddedSocketPath(dir), { force: true }); // a socket left by a Hub that was killed
  return openPglite(dir, release);
}

async function openPglite(dir: string | undefined, release: () => void): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const pendingFile = dir && path.join(dir, DEMO_PENDING_FILE);
  let client;
  try {
    const isNew = dir !== undefined && !fs.existsSync(path.join(dir, 'PG_VERSION'));
    client = await PGlite.create(dir, { extensions: { pg_trgm } });
    if (isNew && pendingFile) fs.writeFileSync(pendingFile, '');
    await migrate(drizzle(client, { schema }), { migrationsFolder: migrationsFolder() });
    await resealLegacySecrets(drizzle(client, { schema }) as unknown as Db);
  } catch (err) {
    release();
    throw err;
  }
  const pg = client;
  let shared: SharedDatabase | undefined;
  return {
    db: drizzle(pg, { schema }) as unknown as Db,
    kind: 'pglite',
    close: async () => {
      await shared?.close();
      await pg.close();
      release();
    },
    ...(dir && {
      share: async () => {
        // The backend listens, so a socket client's commits carry their notifications (socket.ts).
        await pg.listen(INVALIDATION_CHANNEL, bump);
        const { shareEmbeddedDatabase } = await import('./socket');
        shared ??= await shareEmbeddedDatabase(pg, dir, { onNotification: (channel, topic) => channel === INVALIDATION_CHANNEL && bump(topic) });
        return shared.path;
      },
      demoCatalogPending: () => fs.existsSync(pendingFile!),
      demoCatalogOffered: () => fs.rmSync(pendingFile!, { force: true }),
    }),
  };
}

const holder = globalThis as unknown as { __hubDatabase?: Promise<Database> };

/** The process-wide database, opened (and migrated) on first use. */
export function getDatabase(): Promise<Database> {
  if (!holder.__hubDatabase) {
    const opening = config.databaseUrl ? openPostgres(config.databaseUrl) : openEmbedded(config.dataDir);
    holder.__hubDatabase = opening;
    opening.catch(() => {
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

/** Driver errors that mean "the server is unreachable or refusing work", not "this query is wrong". */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED',
]);

/**
 * Whether a failure means the database is unavailable (an outage, a restart, a statement timeout):
 * the caller should retry later (503 + Retry-After) rather than see a 500. SQLSTATE class 08 is a
 * connection exception; 57P01-57P03 a server shutting down or starting; 53300 too many connections;
 * 57014 a statement cancelled by statement_timeout.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (UNAVAILABLE_ERRNOS.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014'].includes(code)) return true;
  }
  return false;
}

/** Runs a raw drizzle `sql` query and returns its rows (postgres.js answers an array, PGlite `{rows}`). */
export async function execRows<T>(q: Queryable, query: SQL): Promise<T[]> {
  const result = (await q.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
