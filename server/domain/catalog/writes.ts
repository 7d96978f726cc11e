/**
 * Every change to what the catalog shows goes through catalogWrite(): one transaction that
 *  - holds a shared advisory lock, so the updates endpoint can wait for in-flight writers (see sync.ts),
 *  - stamps the change with clock_timestamp() taken after the lock, and
 *  - records sync tombstones (exits) and widening bumps next to the change, and
 *  - announces the change so that every process drops its cached catalog answers (invalidation.ts).
 */
import { sql, type SQL } from 'drizzle-orm';
import { execRows, getDb, type Tx } from '../../db/client';
import { templateExits } from '../../db/schema';
import { announceChange } from '../../db/invalidation';

/** Shared by writers, exclusive for a moment by the updates watermark. */
export const CATALOG_SYNC_LOCK = 72_620_002;

/** A timestamp parameter for raw SQL (postgres.js does not serialise Date inside untyped fragments). */
export function sqlTimestamp(at: Date): SQL {
  return sql`${at.toISOString()}::timestamptz`;
}

export interface CatalogChange {
  tx: Tx;
  /** The change's timestamp: use it for updated_at and exits. */
  at: Date;
}

export async function catalogWrite<T>(fn: (change: CatalogChange) => Promise<T>): Promise<T> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock_shared(${CATALOG_SYNC_LOCK})`);
    const [row] = await execRows<{ at: string | Date }>(tx, sql`select clock_timestamp() as at`);
    await announceChange(tx, 'catalog');
    return fn({ tx, at: new Date(row!.at) });
  });
}

/**
 * Records, for the templates matching `where` (SQL over the aliases t = templates, c = categories), who could see them
 * before the change about to be made: everyone, their owner and grant-holding organizations, or admins.
 * Call it before a change that may hide templates (delete, privacy, category move, owner change).
 */
export async function recordExits({ tx, at }: CatalogChange, where: SQL): Promise<void> {
  await tx.execute(sql`
    insert into template_exits (template_id, slug, audience, audience_org_id, at)
    select t.id, t.slug, 'everyone', null::uuid, ${sqlTimestamp(at)}
      from templates t join categories c on c.id = t.category_id
     where (${where}) and t.is_public and not c.is_private
    union all
    select t.id, t.slug, 'admins', null::uuid, ${sqlTimestamp(at)}
      from templates t join categories c on c.id = t.category_id
     where (${where}) and not (t.is_public and not c.is_private)
    union all
    select t.id, t.slug, 'org', t.org_id, ${sqlTimestamp(at)}
      from templates t join categories c on c.id = t.category_id
     where (${where}) and t.org_id is not null and not (t.is_public and not c.is_private)
    union all
    select t.id, t.slug, 'org', g.org_id, ${sqlTimestamp(at)}
      from templates t join categories c on c.id = t.category_id join access_grants g on g.category_id = c.id
     where (${where}) and c.is_private`);
}

/** A grant was revoked: the organization may have lost sight of every template of the category. */
export async function recordGrantExits({ tx, at }: CatalogChange, orgId: string, categoryId: string): Promise<void> {
  await tx.execute(sql`
    insert into ${templateExits} (template_id, slug, audience, audience_org_id, at)
    select t.id, t.slug, 'org', ${orgId}::uuid, ${sqlTimestamp(at)} from templates t where t.category_id = ${categoryId}`);
}

/**
 * Templates that some callers may see for the first time (made public, category opened, grant created,
 * new owner) get updated_at = now so that incremental sync delivers them. `where` is over the alias t.
 */
export async function bumpTemplates({ tx, at }: CatalogChange, where: SQL): Promise<void> {
  await tx.execute(sql`update templates t set updated_at = ${sqlTimestamp(at)} where ${where}`);
}
