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

export type { Db, Queryable, Schema, Tx } from './types';

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

const MIGRATION_LOCK = 72_620_001;

function migrationsFolder() {
  return path.join(process.cwd(), 'drizzle');
}

async function openPostgres(url: string): Promise<Database> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const client = postgres(url, {
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
  await client.listen(INVALIDATION_CHANNEL, bump, bumpAll);
  return {
    db,
    kind: 'postgres',
    close: () => client.end({ timeout: 5 }),
  };
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
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `The embedded database in ${dir} is in use by process ${holder}. ` +
            'Only one Hub process may open it; stop that process or set DATABASE_URL to use PostgreSQL.',
          { cause: err },
        );
      }
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

async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const inMemory = dataDir === 'memory://';
  const release = inMemory ? () => {} : lockDataDir(path.resolve(dataDir));
  let client;
  try {
    client = await PGlite.create(inMemory ? undefined : path.resolve(dataDir), { extensions: { pg_trgm } });
    await migrate(drizzle(client, { schema }), { migrationsFolder: migrationsFolder() });
    await resealLegacySecrets(drizzle(client, { schema }) as unknown as Db);
  } catch (err) {
    release();
    throw err;
  }
  const pg = client;
  return {
    db: drizzle(pg, { schema }) as unknown as Db,
    kind: 'pglite',
    close: async () => {
      await pg.close();
      release();
    },
  };
}

const holder = globalThis as unknown as { __hubDatabase?: Promise<Database> };

/** The process-wide database, opened (and migrated) on first use. */
export function getDatabase(): Promise<Database> {
  if (!holder.__hubDatabase) {
    const opening = config.databaseUrl ? openPostgres(config.databaseUrl) : openPglite(config.dataDir);
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
