/**
 * The in-memory database (HUB_DATA_DIR=memory://; the tests): PGlite on this thread, loaded from the migrated
 * snapshot tests/global-setup.ts makes (HUB_TEST_PGLITE_SNAPSHOT) instead of running initdb and every migration.
 *
 * Loading the snapshot costs ~0.7 s of CPU, and a test worker opens one per test file. So closing one puts it
 * back to the snapshot's state and keeps it for the next opening in this process: the session discarded
 * (settings, prepared statements, temporary tables, locks, LISTEN), every table of `public` emptied and its
 * sequences restarted (~50 ms). It is closed for real instead when it cannot be put back exactly: left inside a
 * transaction, or its schema, roles or extensions no longer those of the snapshot (a test altered them).
 * Whoever still holds the closed handle can no longer use it: every use throws, as on a closed database.
 */
import fs from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';

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

/** A closed database put back to the snapshot's state, for the next opening. */
let kept: PGlite | undefined;
/** The snapshot's definitions once loaded (a kept database is put back only if they still match). */
let snapshotFingerprint: string | undefined;

async function fingerprintOf(pg: PGlite): Promise<string> {
  return (await pg.query<{ fingerprint: string }>(DEFINITIONS)).rows[0]!.fingerprint;
}

async function load(): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const snapshot = process.env.HUB_TEST_PGLITE_SNAPSHOT;
  const loadDataDir = snapshot ? new Blob([fs.readFileSync(snapshot)]) : undefined;
  const pg = await PGlite.create(undefined, { extensions: { pg_trgm }, loadDataDir });
  // Without a snapshot the opening migrates it afterwards: nothing to put it back to, so it is never kept.
  if (snapshot) snapshotFingerprint ??= await fingerprintOf(pg);
  return pg;
}

/** Puts the database back to the snapshot's state; false when that cannot be done exactly. */
async function putBack(pg: PGlite): Promise<boolean> {
  if (!snapshotFingerprint) return false;
  try {
    await pg.exec('discard all'); // refused inside a transaction block
    if ((await fingerprintOf(pg)) !== snapshotFingerprint) return false;
    await pg.exec(EMPTY_PUBLIC);
    return true;
  } catch {
    return false;
  }
}

/**
 * A database in the snapshot's state, behind a handle whose `close()` puts it back (or closes it) and after which
 * every use of the handle throws.
 */
export async function openInMemory(): Promise<PGlite> {
  const pg = kept ?? (await load());
  kept = undefined;
  const handle = Proxy.revocable(pg, {
    get(target, property) {
      if (property === 'close')
        return async () => {
          handle.revoke();
          if (await putBack(target)) kept = target;
          else await target.close();
        };
      // PGlite keeps its state in private fields: its methods run on the object itself, not on this handle.
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return handle.proxy;
}
