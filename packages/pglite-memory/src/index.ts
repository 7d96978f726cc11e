/**
 * An in-memory database (the Hub's HUB_DATA_DIR=memory://, Core without a data folder; the tests): PGlite on this
 * thread, loaded from a migrated snapshot (scripts/test-databases.ts; each suite's global setup makes one) instead of
 * running initdb and every migration.
 *
 * Loading a snapshot costs ~0.7 s of CPU, and the tests open one per file (Core: often per test). So closing one puts
 * it back to the snapshot's state and keeps it for the next opening of that snapshot in this process: the session
 * discarded (settings, prepared statements, temporary tables, locks, LISTEN), every table of `public` emptied and its
 * sequences restarted (~50 ms; only a snapshot whose `public` is empty is kept, as the migrations leave it). It is
 * closed for real instead when it cannot be put back exactly: left inside a transaction, or its schema, roles or
 * extensions no longer those of the snapshot (a test altered them).
 * Whoever still holds the closed handle can no longer use it: every use throws, as on a closed database.
 */
import fs from 'node:fs';
import type { Extensions, PGlite } from '@electric-sql/pglite';

/** The definitions a reset cannot restore; equal to the snapshot's, a reset brings back its state exactly. */
const DEFINITIONS = `
  select md5(string_agg(d, E'\\n' order by d)) as fingerprint from (
    select concat_ws(' ', 'rel', c.oid::regclass, c.relkind, c.relnatts)
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
    union all
    select concat_ws(' ', 'col', a.attrelid::regclass, a.attname, a.atttypid, a.attnotnull, a.atthasdef)
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and a.attnum > 0 and not a.attisdropped
    union all
    select concat_ws(' ', 'trigger', tgrelid::regclass, tgname, tgenabled) from pg_trigger where not tgisinternal
    union all
    select concat_ws(' ', 'function', p.oid::regprocedure, md5(p.prosrc))
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname not in ('pg_catalog', 'information_schema')
    union all
    select concat_ws(' ', 'role', rolname, rolsuper, rolcanlogin) from pg_roles
    union all
    select concat_ws(' ', 'extension', extname, extversion) from pg_extension
    union all
    select concat_ws(' ', 'setting', setdatabase, setrole, setconfig::text) from pg_db_role_setting
  ) definitions(d)`;

/** Empties every table of public (foreign keys and triggers off meanwhile: no order, no read model upkeep). */
const EMPTY_PUBLIC = `
  do $$
  declare
    t regclass;
  begin
    set local session_replication_role = replica;
    for t in select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = 'public' and c.relkind in ('r', 'p') loop
      execute format('delete from %s', t);
    end loop;
    for t in select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = 'public' and c.relkind = 'S' loop
      perform setval(t, 1, false);
    end loop;
  end $$`;

interface Snapshot {
  /**
   * Its definitions, once loaded: a closed database is put back only if they still match. null: a snapshot with
   * rows in `public`, which emptying it would not give back (never kept).
   */
  fingerprint?: string | null;
  /** Closed databases put back to its state, for the next openings. */
  kept: PGlite[];
}
const snapshots = new Map<string, Snapshot>();

function snapshotAt(file: string | undefined): Snapshot | undefined {
  if (file === undefined) return undefined;
  let snapshot = snapshots.get(file);
  if (!snapshot) snapshots.set(file, (snapshot = { kept: [] }));
  return snapshot;
}

async function fingerprintOf(pg: PGlite): Promise<string> {
  return (await pg.query<{ fingerprint: string }>(DEFINITIONS)).rows[0]!.fingerprint;
}

/**
 * Whether emptying `public` and restarting its sequences gives back this snapshot: no row in any of its tables and
 * no sequence used yet (a migration that seeded rows would make it a snapshot that is never kept).
 */
async function emptyPublic(pg: PGlite): Promise<boolean> {
  const tables = await pg.query<{ name: string }>(`
    select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p')`);
  const rows = tables.rows.map(({ name }) => `exists (select 1 from ${name})`);
  const { rows: found } = await pg.query<{ any: boolean }>(`
    select (${['false', ...rows].join(' or ')})
        or exists (select 1 from pg_sequences where schemaname = 'public' and last_value is not null) as any`);
  return !found[0]!.any;
}

/** Puts the database back to the snapshot's state; false when that cannot be done exactly. */
async function putBack(pg: PGlite, snapshot: Snapshot | undefined): Promise<boolean> {
  if (!snapshot?.fingerprint) return false;
  try {
    await pg.exec('discard all'); // refused inside a transaction block
    if ((await fingerprintOf(pg)) !== snapshot.fingerprint) return false;
    await pg.exec(EMPTY_PUBLIC);
    return true;
  } catch {
    return false;
  }
}

export interface InMemoryOptions {
  /** The tarball of a migrated data directory (PGlite's dumpDataDir); none: a new database, never kept. */
  snapshot: string | undefined;
  extensions?: Extensions;
}

/**
 * A database in the snapshot's state, behind a handle whose `close()` puts it back (or closes it) and after which
 * every use of the handle throws.
 */
export async function openInMemory({ snapshot: file, extensions }: InMemoryOptions): Promise<PGlite> {
  const snapshot = snapshotAt(file);
  let pg = snapshot?.kept.pop();
  if (!pg) {
    const { PGlite } = await import('@electric-sql/pglite');
    const loadDataDir = file === undefined ? undefined : new Blob([fs.readFileSync(file)]);
    pg = await PGlite.create(undefined, { extensions, loadDataDir });
    if (snapshot && snapshot.fingerprint === undefined)
      snapshot.fingerprint = (await emptyPublic(pg)) ? await fingerprintOf(pg) : null;
  }
  const handle = Proxy.revocable(pg, {
    get(target, property) {
      if (property === 'close')
        return async () => {
          handle.revoke();
          if (await putBack(target, snapshot)) snapshot!.kept.push(target);
          else await target.close();
        };
      // PGlite keeps its state in private fields: its methods run on the object itself, not on this handle.
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return handle.proxy;
}
