/**
 * Core's database: postgres.js when CORE_DATABASE_URL is set, embedded PGlite otherwise (in
 * CORE_DATA_DIR, or in memory for tests). Both speak the same drizzle query builder; migrations from
 * core/drizzle are applied on open.
 */
import path from 'node:path';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { lockDataFolder, preparePrivateDataFolder, restrictDataFolder } from '@shared/data-folder';
import { openInMemory } from '@shared/pglite-memory';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { CORE_ROOT } from '../config';
import * as schema from './schema';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Queryable = Db | Tx;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /**
   * Calls `listener` with the SQL of every statement issued through `db` until the returned function is
   * called (tests use it to show which tables a page reads). Costs nothing while nobody listens.
   */
  onQuery(listener: (sql: string) => void): () => void;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  /**
   * A session-level advisory lock held on a dedicated connection until released (or that connection
   * ends): null when another process holds it. The embedded database is one process: always granted.
   */
  tryLock(key: number): Promise<HeldLock | null>;
  /** Tells the other processes on this database (LISTEN/NOTIFY); nothing on the embedded one (one process). */
  notify(channel: string): Promise<void>;
  /** Calls `fn` on each notification of `channel` until the returned function is called. */
  listen(channel: string, fn: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface HeldLock {
  /** False once the connection holding it is gone (the lock went with it). */
  held(): Promise<boolean>;
  release(): Promise<void>;
}

const MIGRATIONS = path.join(CORE_ROOT, 'drizzle');

function queryListeners() {
  const listeners = new Set<(sql: string) => void>();
  return {
    logger: { logQuery: (query: string) => listeners.forEach((l) => l(query)) },
    onQuery(listener: (sql: string) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
const MIGRATION_LOCK = 72_620_100;

async function openPostgres(url: string): Promise<Database> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const client = postgres(url, { max: 10, onnotice: () => {}, connection: { application_name: 'core' } });
  const queries = queryListeners();
  const db = drizzle(client, { schema, logger: queries.logger });
  // Several Core processes may start at once: one migrates, the others wait for it.
  const lock = await client.reserve();
  try {
    await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(db, { migrationsFolder: MIGRATIONS });
  } finally {
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    lock.release();
  }
  return {
    db: db as unknown as Db,
    kind: 'postgres',
    onQuery: queries.onQuery,
    ping: async () => {
      await client`select 1`;
    },
    async tryLock(key) {
      const conn = await client.reserve();
      try {
        const [row] = await conn<{ ok: boolean }[]>`select pg_try_advisory_lock(${key}) as ok`;
        if (!row?.ok) {
          conn.release();
          return null;
        }
      } catch (err) {
        conn.release();
        throw err;
      }
      let released = false;
      return {
        held: async () => {
          if (released) return false;
          try {
            await conn`select 1`;
            return true;
          } catch {
            return false;
          }
        },
        release: async () => {
          if (released) return;
          released = true;
          await conn`select pg_advisory_unlock(${key})`.catch(() => {});
          conn.release();
        },
      };
    },
    notify: async (channel) => {
      await client.notify(channel, '');
    },
    listen: async (channel, fn) => {
      const { unlisten } = await client.listen(channel, () => fn());
      return unlisten;
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * PGlite has no lock of its own on its data directory (two processes opening it corrupt it), and writes its
 * files 0666 under the process umask: owner-only umask first, the folder narrowed (with a log line), then the lock.
 */
function lockDataDir(dir: string, onFixed: (count: number, sample: string[]) => void): () => void {
  preparePrivateDataFolder(dir, onFixed);
  return lockDataFolder(dir, {
    lockFile: 'core.lock',
    inUseMessage: (d, holder) =>
      `the embedded database in ${d} is in use by process ${holder} (a running Core?); ` +
      'stop it first, or set CORE_DATABASE_URL to use PostgreSQL',
  });
}

/** A data folder whose permissions were narrowed at open: how many paths, a few of them. */
export type OnFolderFixed = (count: number, sample: string[]) => void;

async function openPglite(
  dataDir: string | null,
  snapshot: string | undefined,
  onFixed: OnFolderFixed,
): Promise<Database> {
  const release = dataDir ? lockDataDir(dataDir, onFixed) : () => {};
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { drizzle } = await import('drizzle-orm/pglite');
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    // Tests only (core/tests/global-setup.ts): an in-memory database starts from a snapshot of a migrated one
    // instead of running initdb and every migration again. Migrations still run (none pending).
    const client = dataDir ? new PGlite(path.join(dataDir, 'pgdata')) : await openInMemory({ snapshot });
    const queries = queryListeners();
    const db = drizzle(client, { schema, logger: queries.logger });
    try {
      await migrate(db, { migrationsFolder: MIGRATIONS });
    } catch (err) {
      // Closed before the lock is released: no other process may open the folder while this one still has it open.
      await client.close().catch(() => {});
      throw err;
    }
    if (dataDir) restrictDataFolder(dataDir); // PGlite creates its files 0666 whatever the umask (data-folder package)
    return {
      db: db as unknown as Db,
      kind: 'pglite',
      onQuery: queries.onQuery,
      ping: async () => {
        await client.query('select 1');
      },
      tryLock: async () => ({ held: async () => true, release: async () => {} }),
      notify: async () => {},
      listen: async () => async () => {},
      close: async () => {
        await client.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

export function openDatabase(
  opts: { databaseUrl: string | null; dataDir: string | null; pgliteSnapshot?: string | null },
  onFixed: OnFolderFixed = () => {},
): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  return openPglite(opts.dataDir, opts.pgliteSnapshot ?? undefined, onFixed);
}
