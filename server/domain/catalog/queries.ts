/** Catalog reads. Every query filters through the visibility predicate of visibility.ts. */
import { and, asc, count, eq, getTableColumns, gte, ilike, or, sql, type SQL } from 'drizzle-orm';
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

async function changesSince(scope: CatalogScope, since: Date) {
  const db = await getDb();
  const audience =
    scope.kind === 'admin'
      ? sql`true`
      : scope.kind === 'org'
        ? sql`(e.audience = 'everyone' or (e.audience = 'org' and e.audience_org_id = ${scope.orgId}))`
        : sql`e.audience = 'everyone'`;
  const [rows, removed] = await Promise.all([
    db
      .select(templateSelection)
      .from(templates)
      .innerJoin(categories, eq(categories.id, templates.categoryId))
      .where(and(templateVisible(scope), gte(templates.updatedAt, since)))
      .orderBy(asc(templates.updatedAt), asc(templates.id)),
    execRows<{ id: string; slug: string; removed_at: string | Date }>(
      db,
      sql`select e.template_id as id, e.slug, max(e.at) as removed_at
            from template_exits e
           where e.at >= ${sqlTimestamp(since)} and ${audience}
             and not exists (
               select 1 from ${templates} join ${categories} on ${eq(categories.id, templates.categoryId)}
                where ${and(eq(templates.id, sql`e.template_id`), templateVisible(scope))})
           group by e.template_id, e.slug
           order by removed_at, id`,
    ),
  ]);
  return {
    rows,
    removed: removed.map((r) => ({ id: r.id, slug: r.slug, removed_at: new Date(r.removed_at).toISOString() })),
  };
}

/**
 * Changes since `since` and the checked_at to use as the next since.
 * Nothing changed: checked_at is `since` itself, which is always safe (the client asks the same
 * question again) and makes an idle client's poll the same request each time (cacheable, 304).
 * Something changed: checked_at is the sync watermark, taken before the query that is returned.
 */
export async function templateUpdates(scope: CatalogScope, since: Date) {
  const first = await changesSince(scope, since);
  if (first.rows.length === 0 && first.removed.length === 0 && since.getTime() <= Date.now()) {
    return { ...first, checkedAt: since };
  }
  const checkedAt = await syncWatermark();
  return { ...(await changesSince(scope, since)), checkedAt };
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
