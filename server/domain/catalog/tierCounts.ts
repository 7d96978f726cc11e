/**
 * A substring search's match count per rank tier. Counting every match is what a common term costs (a trigram
 * bitmap over a tenth of the catalog and a recheck of each row), so the matches are counted once per catalog
 * generation, term and tag filter for every caller at once: grouped by tier and by the columns the visibility
 * rule and the category and featured filters read. A scope's counts are then a sum over those few groups (tens
 * of rows), filtered by the same visibility predicate (visibility.ts), and are kept per scope and filter too.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { boolean, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { LRUCache } from 'lru-cache';
import { execRows, type Db } from '../../db/client';
import { generation } from '../../db/invalidation';
import { catalogEntries } from '../../db/schema';
import type { CatalogScope } from '../principal';
import { categoryIdOf, templateFilterSql, type TemplateFilters } from './filters';
import { listTemplatesQueries } from './listQuery';
import { searchStats, tieOrder, tierOf, type TierCounts } from './search';
import { templateVisible } from './visibility';

const entries = catalogEntries;

/** One group of a term's matches: a tier, and the values of the columns visibility and the filters read. */
interface MatchGroup {
  tier: number;
  category_id: string;
  org_id: string | null;
  is_public: boolean;
  is_featured: boolean;
  n: number;
}

/**
 * The groups as a relation in the per-scope sum (never a table: jsonb_to_recordset's alias), typed so that the
 * visibility predicate and the filters apply to it as to catalog_entries.
 */
const groups = pgTable('match_groups', {
  tier: integer('tier').notNull(),
  categoryId: uuid('category_id').notNull(),
  orgId: uuid('org_id'),
  isPublic: boolean('is_public').notNull(),
  isFeatured: boolean('is_featured').notNull(),
  n: integer('n').notNull(),
});

/** The term and tags as the count depends on them (both are lower-cased in SQL; ASCII folds the same here). */
function matchKey(filters: TemplateFilters) {
  const fold = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s.toLowerCase() : s);
  const tags = [...new Set((filters.tags ?? []).map(fold))].sort();
  return JSON.stringify([fold(filters.search ?? ''), tags]);
}

/** Every match of the term (and tags) counted per tier and group, for all scopes at once, unexecuted. */
export function matchGroupsQuery(db: Db, filters: TemplateFilters) {
  const tier = tierOf(filters.search ?? '');
  return db
    .select({
      tier: sql<number>`${tier}`.as('tier'),
      category_id: entries.categoryId,
      org_id: entries.orgId,
      is_public: entries.isPublic,
      is_featured: entries.isFeatured,
      n: sql<number>`count(*)::int`,
    })
    .from(entries)
    .where(and(...templateFilterSql({ search: filters.search, tags: filters.tags })))
    .groupBy(sql`1`, entries.categoryId, entries.orgId, entries.isPublic, entries.isFeatured);
}

/** One pass over a term's matches (a CTE of searchPassQuery, never a table): what the groups and a page read. */
const pass = pgTable('search_pass', {
  id: uuid('id').notNull(),
  tier: integer('tier').notNull(),
  tie: text('tie').notNull(),
  categoryId: uuid('category_id').notNull(),
  orgId: uuid('org_id'),
  isPublic: boolean('is_public').notNull(),
  isFeatured: boolean('is_featured').notNull(),
});

/** A scope and the category and featured filters, over a relation with the visibility columns (pass or groups). */
function scoped(scope: CatalogScope, filters: TemplateFilters, t: typeof pass | typeof groups) {
  return and(
    templateVisible(scope, t),
    filters.category ? eq(t.categoryId, categoryIdOf(filters.category)) : undefined,
    filters.featured ? eq(t.isFeatured, true) : undefined,
  );
}

/**
 * A term's first ask in a catalog generation, as one statement that reads every match once (a materialized CTE):
 * the groups of every scope (what matchGroupsQuery counts), this scope's total under its filters, and the ids of the
 * page in rank order (tier, tie order, id: a top-N sort). Before, the count and the page each visited every match
 * (a deep page read them twice, side by side; a shallow one after the count). Unexecuted (the benchmark EXPLAINs it).
 */
export function searchPassQuery(db: Db, scope: CatalogScope, filters: TemplateFilters, limit: number, offset: number) {
  const term = filters.search ?? '';
  const match = and(...templateFilterSql({ search: term, tags: filters.tags }));
  return sql`with ${pass} as materialized (
      select ${entries.templateId} as id, ${tierOf(term)} as tier, ${tieOrder} as tie, ${entries.categoryId} as category_id,
             ${entries.orgId} as org_id, ${entries.isPublic} as is_public, ${entries.isFeatured} as is_featured
        from ${entries} where ${match}),
    ${groups} as (
      select tier, category_id, org_id, is_public, is_featured, count(*)::int as n from ${pass} group by 1, 2, 3, 4, 5)
    select (select coalesce(json_agg(${groups}), '[]') from ${groups}) as groups,
           (select coalesce(sum(${groups.n}), 0)::int from ${groups} where ${scoped(scope, filters, groups)}) as total,
           (select coalesce(json_agg(p.id order by p.tier, p.tie, p.id), '[]')
              from (select ${pass.id} as id, ${pass.tier} as tier, ${pass.tie} as tie from ${pass}
                     where ${scoped(scope, filters, pass)}
                     order by 2, 3, 1 limit ${limit} offset ${offset}) p) as ids`;
}

/** A scope's count per tier from a term's groups, under the category and featured filters. */
function scopeSum(
  db: Db,
  scope: CatalogScope,
  filters: TemplateFilters,
  found: MatchGroup[],
): Promise<TierCounts['tiers']> {
  const tiers = [0, 0, 0, 0];
  if (found.length === 0) return Promise.resolve(tiers);
  const where: SQL | undefined = scoped(scope, filters, groups);
  const relation = sql`jsonb_to_recordset(${JSON.stringify(found)}::jsonb)
    as ${groups}(tier int, category_id uuid, org_id uuid, is_public boolean, is_featured boolean, n int)`;
  return execRows<{ tier: number; n: number }>(
    db,
    sql`select ${groups.tier} as tier, sum(${groups.n})::int as n from ${relation} where ${where} group by 1`,
  ).then((rows) => {
    for (const { tier, n } of rows) tiers[Number(tier)] = Number(n);
    return tiers;
  });
}

// The TTL bounds what a change made outside catalogWrite (plain SQL, no announcement) can leave stale, as the response cache's does.
const cacheOptions = { ttl: 60_000 };
/** A term's groups per catalog generation (shared by every scope and by the category and featured filters). */
const groupCache = new LRUCache<string, { generation: number; groups: Promise<MatchGroup[]> }>({
  max: 5_000,
  ...cacheOptions,
});
/** A scope's tier counts per filter (a small query over the groups, kept as well). */
const tierCountCache = new LRUCache<string, { generation: number; counts: Promise<TierCounts> }>({
  max: 10_000,
  ...cacheOptions,
});

function kept<T>(
  cache: LRUCache<string, { generation: number } & T>,
  key: string,
  current: number,
  make: () => T,
  promise: (v: T) => Promise<unknown>,
): T {
  const cached = cache.get(key);
  if (cached && cached.generation === current) return cached;
  const made = make();
  cache.set(key, { generation: current, ...made });
  promise(made).catch(() => {
    if (cache.get(key)?.generation === current) cache.delete(key);
  });
  return made;
}

function matchGroups(db: Db, filters: TemplateFilters, current: number): Promise<MatchGroup[]> {
  return kept(
    groupCache,
    matchKey(filters),
    current,
    () => {
      searchStats.tierCounts++;
      return { groups: matchGroupsQuery(db, filters).then((rows) => rows as MatchGroup[]) };
    },
    (v) => v.groups,
  ).groups;
}

/**
 * A page of a term not counted in this catalog generation, and its total, in one pass (searchPassQuery); the pass's
 * groups are kept for the generation it started in, so every later ask (any scope, page or category and featured
 * filter) sums them and reads only the tiers its page covers.
 */
export async function searchPass(
  db: Db,
  scope: CatalogScope,
  filters: TemplateFilters,
  limit: number,
  offset: number,
): Promise<{ ids: string[]; total: number }> {
  const current = generation('catalog');
  searchStats.rankedPages++;
  const parse = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
  const result = execRows<{ groups: MatchGroup[] | string; total: number | string; ids: string[] | string }>(
    db,
    searchPassQuery(db, scope, filters, limit, offset),
  ).then(([row]) => ({
    groups: parse(row!.groups),
    total: Number(row!.total),
    ids: parse(row!.ids),
  }));
  kept(
    groupCache,
    matchKey(filters),
    current,
    () => {
      searchStats.tierCounts++;
      return { groups: result.then((r) => r.groups) };
    },
    (v) => v.groups,
  );
  const { ids, total } = await result;
  return { ids, total };
}

/** Whether a term's matches are counted for the current catalog generation (a scope's sum is then a small query). */
export function searchTierCountsKept(filters: TemplateFilters): boolean {
  return groupCache.get(matchKey(filters))?.generation === generation('catalog');
}

export function searchTierCounts(db: Db, scope: CatalogScope, filters: TemplateFilters): Promise<TierCounts> {
  const key = JSON.stringify([
    scope.kind === 'org' ? scope.orgId : scope.kind,
    matchKey(filters),
    filters.category ?? '',
    filters.featured ? 1 : 0,
  ]);
  const current = generation('catalog');
  return kept(
    tierCountCache,
    key,
    current,
    () => {
      const first = { page: 1, limit: 1 };
      const counts = Promise.all([
        matchGroups(db, filters, current).then((found) => scopeSum(db, scope, filters, found)),
        // The scope's entries under the category and featured filters: the maintained counters.
        listTemplatesQueries(db, scope, { category: filters.category, featured: filters.featured }, first).count,
      ]).then(([tiers, [all]]) => ({ tiers, visible: Number(all?.n ?? 0) }));
      return { counts };
    },
    (v) => v.counts,
  ).counts;
}
