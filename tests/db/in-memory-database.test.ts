/**
 * The in-memory database the tests run on (@shared/pglite-memory, here with the Hub's snapshot): closing one puts it
 * back to the migrated snapshot's state for the next opening, exactly, or closes it when that cannot be done; a
 * closed handle is unusable.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { openInMemory as openAny } from '@shared/pglite-memory';

const openInMemory = () => openAny({ snapshot: process.env.HUB_TEST_PGLITE_SNAPSHOT, extensions: { pg_trgm } });

/** When this PGlite's Postgres started: the same after a reuse, later after a fresh load. */
async function startedAt(pg: Awaited<ReturnType<typeof openInMemory>>) {
  return (await pg.query<{ at: string }>('select pg_postmaster_start_time()::text as at')).rows[0]!.at;
}

async function snapshotState(pg: Awaited<ReturnType<typeof openInMemory>>) {
  const count = async (table: string) =>
    (await pg.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;
  return {
    categories: await count('categories'),
    catalogEntries: await count('catalog_entries'),
    audit: await count('audit_log'),
  };
}

it('a closed database comes back emptied, its sequences and session reset, and its old handle unusable', async () => {
  const first = await openInMemory();
  const empty = await snapshotState(first);
  const started = await startedAt(first);
  await first.exec(`
    insert into categories (slug, name) values ('kept-out', 'Kept out');
    insert into audit_log (actor_type, action, target_type, target_id) values ('system', 'test', 'category', 'x');
    set statement_timeout = '1234ms';
    create temporary table scratch (n int);`);
  await first.close();
  expect(() => first.query('select 1')).toThrow(/revoked/);

  const second = await openInMemory();
  expect(await startedAt(second)).toBe(started); // the same database, not loaded again
  expect(await snapshotState(second)).toEqual(empty);
  expect((await second.query<{ s: string }>("select current_setting('statement_timeout') as s")).rows[0]!.s).toBe('0');
  await expect(second.query('select * from scratch')).rejects.toThrow(/does not exist/);
  const { rows } = await second.query<{ id: number }>(
    `insert into audit_log (actor_type, action, target_type, target_id) values ('system', 'test', 'category', 'y') returning id`,
  );
  expect(rows[0]!.id).toBe(1); // its sequence restarted
  await second.close();
});

it('a database whose schema changed, or left inside a transaction, is loaded again from the snapshot', async () => {
  const altered = await openInMemory();
  const started = await startedAt(altered);
  await altered.exec('alter table categories add column extra text');
  await altered.close();
  const afterAlter = await openInMemory();
  expect(await startedAt(afterAlter)).not.toBe(started);
  await expect(afterAlter.query('select extra from categories')).rejects.toThrow(/does not exist/);

  const reloaded = await startedAt(afterAlter);
  await afterAlter.exec("begin; insert into categories (slug, name) values ('open-tx', 'Open')");
  await afterAlter.close();
  const afterTransaction = await openInMemory();
  expect(await startedAt(afterTransaction)).not.toBe(reloaded);
  expect((await afterTransaction.query<{ n: number }>('select count(*)::int as n from categories')).rows[0]!.n).toBe(0);
  await afterTransaction.close();
});

it('a snapshot with rows in public is never kept: emptying it would not give it back', async () => {
  const { PGlite } = await import('@electric-sql/pglite');
  const seeded = await PGlite.create();
  await seeded.exec("create table settings (key text primary key); insert into settings values ('seeded')");
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-memory-')), 'seeded.tar');
  fs.writeFileSync(file, Buffer.from(await (await seeded.dumpDataDir('none')).arrayBuffer()));
  await seeded.close();

  const first = await openAny({ snapshot: file });
  const started = await startedAt(first);
  await first.close();
  const second = await openAny({ snapshot: file });
  expect(await startedAt(second)).not.toBe(started);
  expect((await second.query<{ key: string }>('select key from settings')).rows).toEqual([{ key: 'seeded' }]);
  await second.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});
