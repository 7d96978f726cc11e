/** Catalog reads. Every query filters through the visibility predicate of visibility.ts. */
import { and, asc, count, eq, getTableColumns, ilike, or, sql, type SQL } from 'drizzle-orm';
import { execRows, getDb, type Db } from '../../db/client';
import { categories, templates } from '../../db/schema';
import { paginate, type Page } from '../paginate';
import type { CatalogScope } from '../principal';
import { categoryVisible, templateVisible, type VisibilityScope } from './visibility';
import { CATALOG_SYNC_LOCK, sqlTimestamp } from './writes';

const { registryCredentialsEnc: _secret, ...publicColumns } = getTableColumns(templates);

export const templateSelection = {
  ...publicColumns,
  categoryName: categories.name,
  categorySlug: categories.slug,
  categoryIcon: categories.icon,
};

export type TemplateRow = Omit<typeof templates.$inferSelect, 'registryCredentialsEnc'> & {
  categoryName: string;
  categorySlug: string;
  categoryIcon: string;
};

export interface TemplateFilters {
  category?: string;
  search?: string;
  featured?: boolean;
  tags?: string[];
}

function escapeLike(term: string) {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function templateFilterSql(filters: TemplateFilters): SQL[] {
  const conditions: SQL[] = [];
  if (filters.category) conditions.push(eq(categories.slug, filters.category));
  if (filters.search) {
    const pattern = `%${escapeLike(filters.search)}%`;
    conditions.push(or(ilike(templates.name, pattern), ilike(templates.description, pattern))!);
  }
  if (filters.featured) conditions.push(eq(templates.isFeatured, true));
  if (filters.tags && filters.tags.length > 0) {
    conditions.push(sql`${templates.tags} && ${sql`array[${sql.join(filters.tags.map((t) => sql`${t}`), sql`, `)}]::text[]`}`);
  }
  return conditions;
}

/**
 * Spelled like templates_list_order_idx ("is_featured" DESC NULLS LAST): a plain DESC means NULLS FIRST,
 * which does not match the index, so every list would sort all visible rows.
 */
const LIST_ORDER_FEATURED_FIRST = sql`${templates.isFeatured} desc nulls last`;

export type { Page };

/** The list and count queries of a page, unexecuted (the benchmark EXPLAINs these very queries). */
export function listTemplatesQueries(db: Db, scope: CatalogScope, filters: TemplateFilters, { page, limit }: Page) {
  const where = and(templateVisible(scope), ...templateFilterSql(filters));
  return {
    list: db
      .select(templateSelection)
      .from(templates)
      .innerJoin(categories, eq(categories.id, templates.categoryId))
      .where(where)
      .orderBy(LIST_ORDER_FEATURED_FIRST, asc(templates.name), asc(templates.id))
      .limit(limit)
      .offset((page - 1) * limit),
    count: db.select({ n: count() }).from(templates).innerJoin(categories, eq(categories.id, templates.categoryId)).where(where),
  };
}

export async function listTemplates(scope: CatalogScope, filters: TemplateFilters, page: Page) {
  const { list, count: countQuery } = listTemplatesQueries(await getDb(), scope, filters, page);
  return paginate(page, () => list, () => countQuery);
}

/**
 * Get-by-slug is the one catalog read that misses the response cache often (one entry per template and
 * caller scope), so it runs as a prepared statement per scope kind: planned once per connection.
 */
function prepareBySlug(db: Db, kind: CatalogScope['kind']) {
  const scope: VisibilityScope = kind === 'org' ? { kind, orgId: sql.placeholder('orgId') } : { kind };
  return db
    .select(templateSelection)
    .from(templates)
    .innerJoin(categories, eq(categories.id, templates.categoryId))
    .where(and(eq(templates.slug, sql.placeholder('slug')), templateVisible(scope)))
    .prepare(`template_by_slug_${kind}`);
}
const bySlugStatements = new WeakMap<Db, Record<CatalogScope['kind'], ReturnType<typeof prepareBySlug>>>();

export async function findTemplateBySlug(scope: CatalogScope, slug: string): Promise<TemplateRow | null> {
  const db = await getDb();
  let statements = bySlugStatements.get(db);
  if (!statements) {
    statements = { admin: prepareBySlug(db, 'admin'), org: prepareBySlug(db, 'org'), anonymous: prepareBySlug(db, 'anonymous') };
    bySlugStatements.set(db, statements);
  }
  const [row] = await statements[scope.kind].execute({ slug, orgId: scope.kind === 'org' ? scope.orgId : undefined });
  return row ?? null;
}

/**
 * The sync watermark. Catalog writers hold a shared advisory lock for their whole transaction and stamp
 * changes with clock_timestamp() taken after acquiring it; taking the lock exclusively here waits for
 * every writer in flight to commit. So each change stamped before the returned time is committed (and
 * visible to the queries that follow), and each later writer stamps a later time. Truncated down to
 * milliseconds (ISO 8601 precision), which only widens the next window.
 */
async function syncWatermark(): Promise<Date> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CATALOG_SYNC_LOCK})`);
    const [row] = await execRows<{ at: string | Date }>(tx, sql`select date_trunc('milliseconds', clock_timestamp()) as at`);
    return new Date(row!.at);
  });
}

export interface RemovedTemplate {
  id: string;
  slug: string;
  removed_at: string;
}

/** Templates plus removals per updates answer: a bulk write or a sync from 1970 costs one page. */
export const UPDATES_PAGE_SIZE = 500;

/**
 * A point in the (stamp, id) order of changes, written as an RFC 3339 timestamp: the stamp to the
 * microsecond, then (inside a group of changes sharing one stamp) the id as 39 more decimal digits, which
 * subdivide that microsecond in id order. So checked_at stays a timestamp a client stores and sends back
 * as `since`, and a page may end inside a bulk write without the next one starting that write again.
 */
export interface SyncPoint {
  /** `YYYY-MM-DDTHH:MM:SS.ffffff` plus an offset, for PostgreSQL. */
  at: string;
  /** Changes at exactly `at` with an id up to this one were already sent. */
  afterId: string | null;
}

const UUID_DIGITS = 39;

export function parseSyncPoint(since: string): SyncPoint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/i.exec(since);
  if (!m) return { at: since, afterId: null };
  const fraction = m[2] ?? '';
  const at = `${m[1]}.${fraction.slice(0, 6).padEnd(6, '0')}${m[3]}`;
  if (fraction.length !== 6 + UUID_DIGITS) return { at, afterId: null };
  const hex = BigInt(fraction.slice(6)).toString(16).padStart(32, '0');
  if (hex.length !== 32) return { at, afterId: null };
  return { at, afterId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
}

function formatSyncPoint(stampUtc: string, id: string): string {
  return `${stampUtc}${BigInt(`0x${id.replaceAll('-', '')}`).toString().padStart(UUID_DIGITS, '0')}Z`;
}

/** A change's stamp as UTC text to the microsecond: fixed width, so text order is time order. */
const stampText = (column: SQL | typeof templates.updatedAt) =>
  sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

/** After the point and (when bounded) before the watermark, for a change with this stamp and id. */
function inWindow(stamp: SQL, id: SQL, from: SyncPoint, before: Date | null): SQL {
  const after = from.afterId
    ? sql`(${stamp} > ${from.at}::timestamptz or (${stamp} = ${from.at}::timestamptz and ${id} > ${from.afterId}::uuid))`
    : sql`${stamp} >= ${from.at}::timestamptz`;
  return before ? sql`${after} and ${stamp} < ${sqlTimestamp(before)}` : after;
}

type Change =
  | { kind: 'template'; stamp: string; id: string; row: TemplateRow }
  | { kind: 'removed'; stamp: string; id: string; row: RemovedTemplate };

/** The first `limit` changes in (stamp, id) order, templates and removals merged. */
async function changesSince(scope: CatalogScope, from: SyncPoint, before: Date | null, limit: number): Promise<Change[]> {
  const db = await getDb();
  const audience =
    scope.kind === 'admin'
      ? sql`true`
      : scope.kind === 'org'
        ? sql`(e.audience = 'everyone' or (e.audience = 'org' and e.audience_org_id = ${scope.orgId}))`
        : sql`e.audience = 'everyone'`;
  const [rows, removed] = await Promise.all([
    db
      .select({ ...templateSelection, stamp: stampText(templates.updatedAt) })
      .from(templates)
      .innerJoin(categories, eq(categories.id, templates.categoryId))
      .where(and(templateVisible(scope), inWindow(sql`${templates.updatedAt}`, sql`${templates.id}`, from, before)))
      .orderBy(asc(templates.updatedAt), asc(templates.id))
      .limit(limit),
    execRows<{ id: string; slug: string; removed_at: string | Date; stamp: string }>(
      db,
      sql`select e.template_id as id, e.slug, max(e.at) as removed_at, ${stampText(sql`max(e.at)`)} as stamp
            from template_exits e
           where e.at >= ${from.at}::timestamptz and ${audience}
             and not exists (
               select 1 from ${templates} join ${categories} on ${eq(categories.id, templates.categoryId)}
                where ${and(eq(templates.id, sql`e.template_id`), templateVisible(scope))})
           group by e.template_id, e.slug
          having ${inWindow(sql`max(e.at)`, sql`e.template_id`, from, before)}
           order by max(e.at), e.template_id
           limit ${limit}`,
    ),
  ]);
  const changes: Change[] = [
    ...rows.map(({ stamp, ...row }) => ({ kind: 'template' as const, stamp, id: row.id, row })),
    ...removed.map((r) => ({
      kind: 'removed' as const,
      stamp: r.stamp,
      id: r.id,
      row: { id: r.id, slug: r.slug, removed_at: new Date(r.removed_at).toISOString() },
    })),
  ];
  changes.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return changes.slice(0, limit);
}

/**
 * One page of changes after `since`, and the checked_at to send as the next since.
 *  - Nothing changed: checked_at is `since` itself, which is always safe (the client asks the same
 *    question again) and makes an idle client's poll the same request each time (cacheable, 304).
 *  - Otherwise the sync watermark W is taken first and only changes stamped before W are paged: no
 *    writer can still stamp a time before W, so a point inside W's past is final. A full page
 *    (has_more) ends at its last change's point; the last page ends at W.
 */
export async function templateUpdates(scope: CatalogScope, since: string) {
  const from = parseSyncPoint(since);
  const probe = await changesSince(scope, from, null, 1);
  if (probe.length === 0 && Date.parse(since) <= Date.now()) {
    return { rows: [], removed: [], checkedAt: since, hasMore: false };
  }
  const watermark = await syncWatermark();
  const changes = await changesSince(scope, from, watermark, UPDATES_PAGE_SIZE + 1);
  const hasMore = changes.length > UPDATES_PAGE_SIZE;
  const page = changes.slice(0, UPDATES_PAGE_SIZE);
  const last = page.at(-1);
  return {
    rows: page.flatMap((c) => (c.kind === 'template' ? [c.row] : [])),
    removed: page.flatMap((c) => (c.kind === 'removed' ? [c.row] : [])),
    checkedAt: hasMore && last ? formatSyncPoint(last.stamp, last.id) : watermark.toISOString(),
    hasMore,
  };
}

export async function listCategories(scope: CatalogScope) {
  const db = await getDb();
  // Conditions through drizzle operators: they qualify column names (a bare column in a sql`` fragment
  // of a single-table select is rendered unqualified, which would bind to the subquery's table).
  const visibleCount = sql<number>`(
    select count(*)::int from ${templates}
     where ${and(eq(templates.categoryId, categories.id), templateVisible(scope))})`;
  return db
    .select({ ...getTableColumns(categories), templateCount: visibleCount })
    .from(categories)
    .where(categoryVisible(scope))
    .orderBy(asc(categories.sortOrder), asc(categories.name), asc(categories.id));
}
