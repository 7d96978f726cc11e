/**
 * One database handle per process: postgres.js when DATABASE_URL is set (postgres.ts), embedded PGlite otherwise
 * (pglite.ts). Both speak the same drizzle query builder; migrations from ./drizzle are applied on first open, then
 * secrets sealed in an older format are re-sealed (sealed.ts).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db, Queryable } from './types';
import { config } from '../config';
import type { Database } from './database';
import { bumpAll, generation } from './invalidation';
import { openEmbedded } from './pglite';
import { openPostgres } from './postgres';
import { MASTER_SECRET_REQUIRED, MasterSecretRequired } from './sealed';
import type { ReplicaStatus } from './replicas';
import { gaugeOf, hubMetrics } from '../metrics';

export type { Db, Queryable, Schema, Tx } from './types';
export type { Database } from './database';

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
