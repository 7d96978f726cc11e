/**
 * EXPLAIN (ANALYZE, BUFFERS) of the query behind every catalog scenario (lists in every filter shape,
 * deep pages, ranked search, counts, updates, get by slug, categories, the admin list), built by the
 * Hub's own query builders (server/domain/catalog/listQuery.ts and its neighbours), so the plans are those of the
 * SQL the Hub sends. Each plan is checked for a sequential scan of the catalog tables (templates, catalog_entries).
 * When the planner prefers a plan without the intended index (small tables), the query is explained
 * again with enable_seqscan off to show the index is usable.
 */
import { sql, type SQLWrapper } from 'drizzle-orm';
import { execRows, getDb } from '../server/db/client';
import { listCategoriesQuery } from '../server/domain/catalog/categories';
import { checkpointBefore, checkpointQuery } from '../server/domain/catalog/checkpoints';
import type { TemplateFilters } from '../server/domain/catalog/filters';
import { listTemplatesQueries, type ListOptions } from '../server/domain/catalog/listQuery';
import { templateBySlugQuery } from '../server/domain/catalog/templateBySlug';
import { matchGroupsQuery, searchTierCounts } from '../server/domain/catalog/tierCounts';
import { parseSyncPoint, UPDATES_PAGE_SIZE, updatedTemplatesQuery } from '../server/domain/catalog/updates';
import type { CatalogScope } from '../server/domain/principal';

export interface ExplainCase {
  id: string;
  title: string;
  /** Index names that show the query is served by the intended index. */
  indexes: string[];
}

export interface ExplainResult extends ExplainCase {
  source: 'hub query builder';
  plan: string;
  usesIndex: boolean;
  indexesSeen: string[];
  /** Catalog tables (templates, catalog_entries) the plan reads with a sequential scan. */
  seqScans?: string[];
  executionMs: number | null;
  /** When the natural plan used none of the indexes: the plan with enable_seqscan off. */
  forcedPlan?: string;
  forcedUsesIndex?: boolean;
}

export interface ExplainInputs {
  orgId: string;
  brand: string;
  typo: string;
  tags: string[];
  search: string;
  since: Date;
  slug: string;
  /** Templates the organization sees (for the deep page). */
  visible: number;
  total: number;
}

const ORDER = 'catalog_entries_order_idx';
const CATEGORY_ORDER = 'catalog_entries_category_order_idx';
const TRGM = ['catalog_entries_name_trgm_idx', 'catalog_entries_description_trgm_idx'];
const TAGS = 'catalog_entries_tags_idx';
/** A name tier of a search walked in tie order (a common term), or read through the trigram index. */
const NAME_ORDER = 'catalog_entries_search_name_order_idx';
const COUNTS = 'category_template_counts_key';

type Db = Awaited<ReturnType<typeof getDb>>;
/** A query builder is a thenable (awaiting it runs it): it travels wrapped. */
type Built = { q: SQLWrapper };
type Case = ExplainCase & { query: (db: Db) => Built | Promise<Built> };

function cases(i: ExplainInputs): Case[] {
  const org: CatalogScope = { kind: 'org', orgId: i.orgId };
  const admin: CatalogScope = { kind: 'admin' };
  const limit = 50;
  const deep = Math.max(1, Math.floor((i.visible / limit) * 0.5));
  // As the Hub reads a page: from the checkpoint before it when the list is long (listTemplates).
  const page =
    (scope: CatalogScope, filters: TemplateFilters, n = 1, options: ListOptions = {}) =>
    async (db: Db) => {
      const after =
        n > 1 && !filters.search && !filters.tags
          ? await checkpointBefore(db, scope, filters, (n - 1) * limit)
          : undefined;
      // A substring search reads the tiers its page covers, known from the (cached) count per tier.
      const tierCounts =
        filters.search && options.match !== 'similar' ? await searchTierCounts(db, scope, filters) : undefined;
      return listTemplatesQueries(db, scope, filters, { page: n, limit }, { after, tierCounts, ...options });
    };
  const list =
    (...args: Parameters<typeof page>) =>
    async (db: Db): Promise<Built> => ({ q: (await page(...args)(db)).list });
  const count =
    (...args: Parameters<typeof page>) =>
    async (db: Db): Promise<Built> => ({ q: (await page(...args)(db)).count });
  // A search's matches are counted for every scope at once (tierCounts.ts); a scope then sums a few groups.
  const groups =
    (filters: TemplateFilters) =>
    async (db: Db): Promise<Built> => ({ q: matchGroupsQuery(db, filters) });
  return [
    {
      id: 'plain-list',
      title: 'list, no filter (first page in catalog order)',
      indexes: [ORDER],
      query: list(org, {}),
    },
    { id: 'plain-count', title: 'count, no filter (maintained counts)', indexes: [COUNTS], query: count(org, {}) },
    {
      id: 'checkpoints',
      title: `checkpoints of the catalog order (one pass after each write, per scope and filter)`,
      indexes: [ORDER],
      query: (db) => ({ q: checkpointQuery(db, org, {}) }),
    },
    {
      id: 'deep-page',
      title: `list, page ${deep} of ${Math.ceil(i.visible / limit)}`,
      indexes: [ORDER],
      query: list(org, {}, deep),
    },
    {
      id: 'category-page',
      title: 'list, category=databases, page 30',
      indexes: [CATEGORY_ORDER],
      query: list(org, { category: 'databases' }, 30),
    },
    { id: 'featured-list', title: 'list, featured=true', indexes: [ORDER], query: list(org, { featured: true }) },
    {
      id: 'search-rare-list',
      title: `list, search="${i.brand}" (one match)`,
      indexes: [NAME_ORDER, ...TRGM],
      query: list(org, { search: i.brand }),
    },
    {
      id: 'search-common-list',
      title: `list, search="${i.search}" (a common term)`,
      indexes: [NAME_ORDER, ...TRGM],
      query: list(org, { search: i.search }),
    },
    {
      id: 'search-common-count',
      title: `count per rank tier and visibility group, search="${i.search}" (once per catalog generation, every scope)`,
      indexes: TRGM,
      query: groups({ search: i.search }),
    },
    {
      id: 'search-common-deep',
      title: `list, search="${i.search}", page 20`,
      indexes: [NAME_ORDER, ...TRGM],
      query: list(org, { search: i.search }, 20),
    },
    {
      id: 'search-typo-list',
      title: `list, search="${i.typo}" (misspelled: similar names)`,
      indexes: TRGM,
      query: list(org, { search: i.typo }, 1, { match: 'similar' }),
    },
    {
      id: 'tags-list',
      title: `list, tags=${i.tags.join(',')}`,
      indexes: [TAGS, ORDER],
      query: list(org, { tags: i.tags }),
    },
    {
      id: 'tags-count',
      title: `count, tags=${i.tags.join(',')}`,
      indexes: [TAGS],
      query: count(org, { tags: i.tags }),
    },
    {
      id: 'search-tags-list',
      title: `list, search="${i.search}" and tags=gpu,llm (the load scenario)`,
      indexes: [NAME_ORDER, ...TRGM, TAGS],
      query: list(org, { search: i.search, tags: ['gpu', 'llm'] }),
    },
    {
      id: 'search-tags-count',
      title: `count per rank tier and visibility group, search="${i.search}" and tags=gpu,llm (once per catalog generation)`,
      indexes: [...TRGM, TAGS],
      query: groups({ search: i.search, tags: ['gpu', 'llm'] }),
    },
    { id: 'admin-list', title: 'admin list, first page', indexes: [ORDER], query: list(admin, {}) },
    {
      id: 'admin-deep',
      title: `admin list, page ${Math.max(1, Math.floor((i.total / limit) * 0.9))}`,
      indexes: [ORDER],
      query: list(admin, {}, Math.max(1, Math.floor((i.total / limit) * 0.9))),
    },
    {
      id: 'updates',
      title: `updates since ${i.since.toISOString()}`,
      indexes: ['templates_updated_at_idx'],
      query: (db) => ({
        q: updatedTemplatesQuery(db, org, parseSyncPoint(i.since.toISOString()), null, UPDATES_PAGE_SIZE + 1),
      }),
    },
    {
      id: 'by-slug',
      title: `get by slug ${i.slug}`,
      indexes: ['templates_slug_unique'],
      query: (db) => ({ q: templateBySlugQuery(db, org, i.slug) }),
    },
    {
      id: 'categories',
      title: 'categories with counts (instance key)',
      indexes: [COUNTS],
      query: (db) => ({ q: listCategoriesQuery(db, org) }),
    },
  ];
}

function summarize(c: ExplainCase, plan: string) {
  const indexesSeen = c.indexes.filter((name) => plan.includes(name));
  const ms = /Execution Time: ([\d.]+) ms/.exec(plan);
  return {
    indexesSeen,
    usesIndex: indexesSeen.length > 0,
    seqScans: [...new Set([...plan.matchAll(/Seq Scan on (templates|catalog_entries)\b/g)].map((m) => m[1]!))],
    executionMs: ms ? Number(ms[1]) : null,
  };
}

export async function explainAll(inputs: ExplainInputs): Promise<{ results: ExplainResult[]; note: string | null }> {
  const db = await getDb();
  const run = async (query: SQLWrapper, forced: boolean) => {
    const explain = sql`explain (analyze, buffers, format text) ${query}`;
    const rows = await db.transaction(async (tx) => {
      if (forced) await tx.execute(sql`set local enable_seqscan = off`);
      return execRows<Record<string, string>>(tx, explain);
    });
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  };
  const results: ExplainResult[] = [];
  for (const c of cases(inputs)) {
    const plan = await run((await c.query(db)).q, false);
    const { id, title, indexes } = c;
    const result: ExplainResult = { id, title, indexes, source: 'hub query builder', plan, ...summarize(c, plan) };
    if (!result.usesIndex || result.seqScans!.length > 0) {
      result.forcedPlan = await run((await c.query(db)).q, true);
      result.forcedUsesIndex = summarize(c, result.forcedPlan).usesIndex;
    }
    results.push(result);
  }
  return { results, note: null };
}
