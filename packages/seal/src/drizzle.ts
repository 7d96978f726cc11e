/**
 * The store @shared/seal/master needs, over a service's drizzle database: its settings table (a text `key` and
 * `value`) holds the seal check and the master secret an earlier version kept there; the service lists its own
 * sealed values. The Hub (server/db/sealed.ts) and Core (core/src/domain/crypto.ts) each pass their table.
 */
import { eq, getTableName, sql } from 'drizzle-orm';
import type { TablesRelationalConfig } from 'drizzle-orm';
import type { PgColumn, PgDatabase, PgQueryResultHKT, PgTable } from 'drizzle-orm/pg-core';
import { WAL_PURGE_STATEMENTS, type SealStore, type SealTx } from './master';

/** A service's database or one of its transactions (a drizzle transaction is a database too). */
type Queryable = PgDatabase<PgQueryResultHKT, Record<string, unknown>, TablesRelationalConfig>;

/** A key-value settings table: `key` text primary key, `value` text. */
export type SettingsTable = PgTable & { key: PgColumn; value: PgColumn };

export function settingsSealStore<Tx extends Queryable>(
  db: Queryable,
  settings: SettingsTable,
  /** The service's sealed values and its probe, inside the transaction (locked for update). */
  sealed: (tx: Tx) => Pick<SealTx, 'sealedValues' | 'probe'>,
): SealStore {
  const read = async (q: Queryable, key: string) =>
    (await q.select({ value: settings.value }).from(settings).where(eq(settings.key, key)))[0]?.value as
      string | undefined;
  const txStore = (tx: Tx): SealTx => ({
    ...sealed(tx),
    async putSealCheck(value) {
      await tx
        .insert(settings)
        .values({ key: 'seal_check', value } as never)
        .onConflictDoUpdate({ target: settings.key, set: { value } as never });
    },
    async deleteLegacySecret() {
      await tx.delete(settings).where(eq(settings.key, 'master_secret'));
    },
  });
  return {
    legacySecret: () => read(db, 'master_secret'),
    sealCheck: () => read(db, 'seal_check'),
    transaction: (work) => db.transaction((tx) => work(txStore(tx as unknown as Tx))),
    async compact() {
      // The deleted row's old version stays in the table's pages and the write-ahead log until they are rewritten.
      await db.execute(sql`vacuum full ${sql.identifier(getTableName(settings))}`);
      await db.transaction(async (tx) => {
        for (const statement of WAL_PURGE_STATEMENTS) await tx.execute(sql.raw(statement));
      });
    },
  };
}
