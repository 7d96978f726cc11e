/**
 * Catalog reads: the filters, the listing and its search tiers, one template, the categories. The changes since a
 * sync point are in updates.ts. Every query filters through the visibility predicate of visibility.ts.
 */
import { and, asc, eq, getTableColumns, like, notLike, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { unionAll, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { LRUCache } from 'lru-cache';
import { readCatalog, type Db, type ReadSource } from '../../db/client';
import { generation } from '../../db/invalidation';
import { catalogEntries, categories, categoryTemplateCounts, templates } from '../../db/schema';
import type { Page } from '../paginate';
import type { CatalogScope } from '../principal';
import { categoryVisible, templateVisible, type VisibilityScope } from './visibility';

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

const entries = catalogEntries;

/**
 * How a search term matches. A substring of the name or the description, or a tag equal to the term (all
 * case-insensitive), is the match; only when nothing visible matches so does a word of the name that is
 * trigram-similar to it match (a misspelling finds what was meant, and a common term never pays for the
 * fuzzy match).
 */
export type SearchMatch = 'substring' | 'similar';

const categoryIdOf = (slug: string) => sql`(select c_filter.id from categories c_filter where c_filter.slug = ${slug})`;

/** Tags as the read model keeps them: lower-cased (migration 0005), so a tag matches whatever its case. */
const foldedTags = (tags: string[]) =>
  sql`array[${sql.join(
    tags.map((t) => sql`lower(${t})`),
    sql`, `,
  )}]::text[]`;

/** A tag equal to the term, within search_tags (every tag between unit separators; trigram-indexed). */
const tagPattern = (term: string) => sql`lower(${`%\x1f${escapeLike(term)}\x1f%`})`;

/** The filters as SQL over catalog_entries (every list and count filters the read model, not templates). */
export function templateFilterSql(filters: TemplateFilters, match: SearchMatch = 'substring'): SQL[] {
  const conditions: SQL[] = [];
  if (filters.category) conditions.push(eq(entries.categoryId, categoryIdOf(filters.category)));
  if (filters.search) {
    // The stored columns are lower-cased: LIKE against the lower-cased term is ILIKE without folding every row.
    const pattern = sql`lower(${`%${escapeLike(filters.search)}%`})`;
    conditions.push(
      match === 'substring'
        ? or(
            like(entries.searchName, pattern),
            like(entries.searchDescription, pattern),
            like(entries.searchTags, tagPattern(filters.search)),
          )!
        : sql`lower(${filters.search}) <% ${entries.searchName}`,
    );
  }
  if (filters.featured) conditions.push(eq(entries.isFeatured, true));
  if (filters.tags && filters.tags.length > 0) {
    conditions.push(sql`${entries.tags} && ${foldedTags(filters.tags)}`);
  }
  return conditions;
}

/**
 * Search relevance (README, "Search ranking"): the substring matches fall in four tiers, each a condition
 * that excludes the tiers before it — the name starts with the term (the name equal to the term sorts first
 * in the tie order), the name contains it, a tag is the term, only the description contains it. Within a
 * tier the order is the lower-cased name in byte order (collation-free), then id. A page reads only the
 * tiers it covers, from the offset it needs (the tiers' counts are cached: searchTierCounts).
 *
 * `walk`: the name's conditions on the index expression of catalog_entries_search_name_order_idx instead of
 * the column, which hides them from the trigram index: the tier is then read by walking that index in tie
 * order, visibility and name from the index, until the page is full (see walkIsCheaper).
 */
function searchTiers(term: string, walk = false): SQL[] {
  const escaped = escapeLike(term);
  const prefix = sql`lower(${`${escaped}%`})`;
  const inside = sql`lower(${`%${escaped}%`})`;
  const tag = tagPattern(term);
  const name = walk ? tieOrder : entries.searchName;
  return [
    like(name, prefix),
    and(like(name, inside), notLike(name, prefix))!,
    and(like(entries.searchTags, tag), notLike(entries.searchName, inside))!,
    and(
      like(entries.searchDescription, inside),
      notLike(entries.searchName, inside),
      notLike(entries.searchTags, tag),
    )!,
  ];
}

/** The tier of a substring match (searchTiers), as SQL: the rank the per-tier counts are grouped by. */
function tierOf(term: string): SQL {
  const [prefix, inside, tag] = searchTiers(term);
  return sql`case when ${prefix} then 0 when ${inside} then 1 when ${tag} then 2 else 3 end`;
}

/** The tie order inside a tier: the lower-cased name in byte order (an index expression), then id. */
const tieOrder = sql`(${entries.searchName} collate "C")`;

/** How many matches each tier has for a scope and filter, and how many entries the walk may pass. */
export interface TierCounts {
  tiers: number[];
  /** Entries the scope sees with the search's other filters (an upper bound with a tag filter). */
  visible: number;
}

/**
 * Whether walking the name index is cheaper than visiting every match of a name tier. The walk passes
 * about (skip + limit) × visible / matches entries (index only, ~0.13 µs each here); the trigram bitmap
 * visits all matches in the table and rechecks them (~0.9 µs each) before sorting: measured at 100,000
 * templates (docs/test-loop-and-search.md, part 2). A tier of a few matches always goes through the trigram index.
 */
const WALK_COST_RATIO = 7;
function walkIsCheaper(tier: number, matches: number, visible: number, skip: number, limit: number) {
  return tier < 2 && (skip + limit) * visible < WALK_COST_RATIO * matches * matches;
}

/** What substring searches did in this process (tests assert both ways of reading a tier are used; cheap to keep). */
export const searchStats = {
  /** Passes that counted the matches per tier of a scope and filter (once per catalog generation). */
  tierCounts: 0,
  /** Tiers read by walking the name index; the rest went through the trigram index. */
  walkedTiers: 0,
};

/** The part of each tier a page at `offset` takes, given how many matches each tier has. */
function tierSlices({ tiers, visible }: TierCounts, offset: number, limit: number) {
  const slices: { tier: number; offset: number; walk: boolean }[] = [];
  let skip = offset;
  let wanted = limit;
  tiers.forEach((n, tier) => {
    if (wanted <= 0 || skip >= n) {
      skip -= Math.min(skip, n);
      return;
    }
    const walk = walkIsCheaper(tier, n, visible, skip, wanted);
    if (walk) searchStats.walkedTiers++;
    slices.push({ tier, offset: skip, walk });
    wanted -= n - skip;
    skip = 0;
  });
  return slices;
}

/**
 * A page of a substring search: each tier the page covers, read in tie order from its offset (at most a
 * page from each), then ranked. `where` holds every condition but the search term. With counts from
 * before a write (the page raced it) a page may come out short or empty, never wrong: the next read recounts.
 */
function tieredPage(db: Db, where: SQL | undefined, term: string, counts: TierCounts, limit: number, offset: number) {
  const slices = tierSlices(counts, offset, limit);
  const [first, second, ...more] = (slices.length ? slices : [{ tier: 0, offset: 0, walk: false }]).map(
    ({ tier, offset: from, walk }) =>
      db
        .select({ id: entries.templateId, rank: sql<number>`${tier}::int`.as('rank'), tie: tieOrder.as('tie') })
        .from(entries)
        .where(and(where, searchTiers(term, walk)[tier]))
        .orderBy(tieOrder, asc(entries.templateId))
        .limit(slices.length ? limit : 0)
        .offset(from),
  );
  if (!second) return first!.as('chosen');
  return unionAll(first!, second, ...more)
    .orderBy(sql`"rank"`, sql`"tie"`, sql`"template_id"`)
    .limit(limit)
    .as('chosen');
}

/**
 * A page of a similar-names search (only when no substring matches): every match is read once
 * (materialized), ranked for the page (top-N) by pg_trgm similarity of the whole name and counted for the
 * total. Ties as tieredPage() orders them: the order is total, so pages never overlap or skip.
 */
function similarPage(db: Db, where: SQL | undefined, term: string, limit: number, offset: number) {
  const found = db.$with('found').as(
    db
      .select({
        id: entries.templateId,
        rank: sql<number>`-similarity(lower(${term}), ${entries.searchName})`.as('rank'),
        tie: tieOrder.as('tie'),
      })
      .from(entries)
      .where(where),
  );
  return db
    .with(found)
    .select({
      id: found.id,
      rank: found.rank,
      tie: found.tie,
      matches: sql<number>`(select count(*) from ${found})`.as('matches'),
    })
    .from(found)
    .orderBy(asc(found.rank), asc(found.tie), asc(found.id))
    .limit(limit)
    .offset(offset)
    .as('chosen');
}

/** The outer order of a page's templates: featured first (DESC NULLS LAST, like featured_rank ascending). */
const featuredFirst = (column: AnyPgColumn) => sql`${column} desc nulls last`;

export type { Page };

/** An entry's place in the catalog order (featured first, then name, then id). */
export interface OrderKey {
  featuredRank: number;
  name: string;
  id: string;
}

export interface ListOptions {
  match?: SearchMatch;
  /** A substring search's match count per tier (searchTierCounts): which tiers the page reads, from where. */
  tierCounts?: TierCounts;
  /** Start after this entry, which is at 0-based `position` of the list (keyset pagination). */
  after?: { key: OrderKey; position: number };
}

/** True when the maintained counts answer the total: no filter that needs the rows themselves. */
function countedByCategory(filters: TemplateFilters) {
  return !filters.search && !(filters.tags && filters.tags.length > 0);
}

/**
 * The list and count queries of a page, unexecuted (the benchmark EXPLAINs these very queries).
 * The page is chosen on catalog_entries (index-driven: the covering order indexes without search, the
 * trigram and tag indexes with filters), then only its templates are read in full. Given a known entry
 * before the page (a checkpoint), the index is entered at that entry instead of skipping from the start.
 */
export function listTemplatesQueries(
  db: Db,
  scope: CatalogScope,
  filters: TemplateFilters,
  { page, limit }: Page,
  options: ListOptions = {},
) {
  const match = options.match ?? 'substring';
  const after = options.after;
  // Every condition but the search term (a tiered search page has its own per tier), then the term.
  const others = and(
    templateVisible(scope, entries),
    ...templateFilterSql({ ...filters, search: undefined }),
    after
      ? sql`(${entries.featuredRank}, ${entries.name}, ${entries.templateId}) > (${after.key.featuredRank}::smallint, ${after.key.name}, ${after.key.id}::uuid)`
      : undefined,
  );
  const where = and(others, ...templateFilterSql({ search: filters.search }, match));
  const offset = (page - 1) * limit - (after ? after.position + 1 : 0);
  const similar = filters.search && match === 'similar' ? similarPage(db, where, filters.search, limit, offset) : null;
  const ranked =
    similar ??
    (filters.search
      ? tieredPage(db, others, filters.search, options.tierCounts ?? { tiers: [], visible: 0 }, limit, offset)
      : null);
  const chosen =
    ranked ??
    db
      .select({ id: entries.templateId })
      .from(entries)
      .where(where)
      .orderBy(asc(entries.featuredRank), asc(entries.name), asc(entries.templateId))
      .limit(limit)
      .offset(offset)
      .as('chosen');
  const list = db
    .select({
      ...templateSelection,
      // For the admin list (one query, not a second look-up); the catalog's own answers drop it.
      hasRegistryCredentials: sql<boolean>`(${templates.registryCredentialsEnc} is not null)`,
      matches: similar ? sql<number>`${similar.matches}::int` : sql<number>`null::int`,
    })
    .from(chosen)
    .innerJoin(templates, eq(templates.id, chosen.id))
    .innerJoin(categories, eq(categories.id, templates.categoryId))
    .orderBy(
      ...(ranked ? [asc(ranked.rank), asc(ranked.tie)] : [featuredFirst(templates.isFeatured), asc(templates.name)]),
      asc(templates.id),
    );
  const counts = categoryTemplateCounts;
  // Rows of (tier, n): one row without search, a row per tier that has matches with a substring search.
  const tier = filters.search && match === 'substring' ? tierOf(filters.search) : sql`0`;
  const countQuery = countedByCategory(filters)
    ? db
        .select({ tier: sql<number>`0`, n: sql<number>`coalesce(sum(${counts.n}), 0)::int` })
        .from(counts)
        .where(
          and(
            templateVisible(scope, counts),
            filters.category ? eq(counts.categoryId, categoryIdOf(filters.category)) : undefined,
            filters.featured ? eq(counts.isFeatured, true) : undefined,
          ),
        )
    : db
        .select({ tier: sql<number>`${tier}`.as('tier'), n: sql<number>`count(*)::int` })
        .from(entries)
        .where(where)
        .groupBy(sql`1`);
  return { list, count: countQuery };
}

/**
 * Checkpoints of the catalog order per scope and filter: the key of every CHECKPOINT_EVERY-th entry,
 * read in one index-only pass on the first deep page and kept until the next catalog write (the
 * generation also moves when another process writes), for at most a minute. A deep page then skips at most that many entries.
 */
const CHECKPOINT_EVERY = 1000;
// The TTL bounds what a change made outside catalogWrite (plain SQL, no announcement) can leave stale, as the response cache's does.
const checkpoints = new LRUCache<string, { generation: number; keys: Promise<OrderKey[]> }>({ max: 500, ttl: 60_000 });

/** What the checkpoints did in this process (tests assert deep pages use them; cheap enough to keep). */
export const checkpointStats = {
  /** Passes that read the checkpoints of a scope and filter. */
  reads: 0,
  /** Pages that started at a checkpoint instead of the start of the list. */
  pagesFromCheckpoint: 0,
  /** The entries the last such page skipped after its checkpoint (always < CHECKPOINT_EVERY). */
  lastSkipped: 0,
};

/** The keys of every CHECKPOINT_EVERY-th entry in catalog order, unexecuted (the benchmark EXPLAINs it). */
export function checkpointQuery(db: Db, scope: CatalogScope, filters: TemplateFilters) {
  const position =
    sql<number>`row_number() over (order by ${entries.featuredRank}, ${entries.name}, ${entries.templateId})`.as(
      'position',
    );
  const ordered = db
    .select({ featuredRank: entries.featuredRank, name: entries.name, id: entries.templateId, position })
    .from(entries)
    .where(and(templateVisible(scope, entries), ...templateFilterSql(filters)))
    .as('ordered');
  return db
    .select({ featuredRank: ordered.featuredRank, name: ordered.name, id: ordered.id })
    .from(ordered)
    .where(sql`${ordered.position} % ${CHECKPOINT_EVERY} = 0`)
    .orderBy(ordered.position);
}

function checkpointKeys(db: Db, scope: CatalogScope, filters: TemplateFilters): Promise<OrderKey[]> {
  const cacheKey = `${scope.kind === 'org' ? scope.orgId : scope.kind}\n${filters.category ?? ''}\n${filters.featured ? 1 : 0}`;
  const current = generation('catalog');
  const cached = checkpoints.get(cacheKey);
  if (cached && cached.generation === current) return cached.keys;
  checkpointStats.reads++;
  const keys = checkpointQuery(db, scope, filters).then((rows) => rows);
  checkpoints.set(cacheKey, { generation: current, keys });
  keys.catch(() => checkpoints.delete(cacheKey));
  return keys;
}

/** The last checkpoint before 0-based `offset`, if any. */
export async function checkpointBefore(db: Db, scope: CatalogScope, filters: TemplateFilters, offset: number) {
  const keys = await checkpointKeys(db, scope, filters);
  const index = Math.min(Math.floor(offset / CHECKPOINT_EVERY), keys.length) - 1;
  return index >= 0 ? { key: keys[index]!, position: (index + 1) * CHECKPOINT_EVERY - 1 } : undefined;
}

/**
 * A substring search's match count per tier (searchTiers), per scope and filter: counting every match is
 * what a common term costs (a trigram bitmap over a tenth of the catalog), so it is done once and kept until
 * the next catalog write (the generation also moves when another process writes), for at most a minute.
 */
// The TTL bounds what a change made outside catalogWrite (plain SQL, no announcement) can leave stale, as the response cache's does.
const tierCountCache = new LRUCache<string, { generation: number; counts: Promise<TierCounts> }>({
  max: 10_000,
  ttl: 60_000,
});

export function searchTierCounts(db: Db, scope: CatalogScope, filters: TemplateFilters): Promise<TierCounts> {
  const cacheKey = JSON.stringify([
    scope.kind === 'org' ? scope.orgId : scope.kind,
    filters.search,
    filters.category ?? '',
    filters.featured ? 1 : 0,
    filters.tags ?? [],
  ]);
  const current = generation('catalog');
  const cached = tierCountCache.get(cacheKey);
  if (cached && cached.generation === current) return cached.counts;
  searchStats.tierCounts++;
  const first = { page: 1, limit: 1 };
  const counts = Promise.all([
    listTemplatesQueries(db, scope, filters, first).count,
    // The scope's entries under the category and featured filters: the maintained counters.
    listTemplatesQueries(db, scope, { category: filters.category, featured: filters.featured }, first).count,
  ]).then(([rows, [all]]) => {
    const tiers = [0, 0, 0, 0];
    for (const { tier, n } of rows) tiers[Number(tier)] = Number(n);
    return { tiers, visible: Number(all?.n ?? 0) };
  });
  tierCountCache.set(cacheKey, { generation: current, counts });
  counts.catch(() => tierCountCache.delete(cacheKey));
  return counts;
}

async function listMatching(db: Db, scope: CatalogScope, filters: TemplateFilters, page: Page, match: SearchMatch) {
  const total = async (query: Promise<{ n: number }[]>) => Number((await query)[0]?.n ?? 0);
  const pageOf = (rows: (ListedRow & { matches: number | null })[]) => rows.map(({ matches: _, ...row }) => row);
  if (countedByCategory(filters)) {
    const { list, count: countQuery } = listTemplatesQueries(db, scope, filters, page, { match });
    if (page.page === 1) {
      // A first page that is not full is everything: no count needed.
      const rows = pageOf(await list);
      return { rows, total: rows.length < page.limit ? rows.length : await total(countQuery) };
    }
    // The total costs a few summed counters; a deep page starts from the nearest checkpoint before it.
    const offset = (page.page - 1) * page.limit;
    const [known, after] = await Promise.all([
      total(countQuery),
      offset >= CHECKPOINT_EVERY ? checkpointBefore(db, scope, filters, offset) : undefined,
    ]);
    if (offset >= known) return { rows: [], total: known };
    if (after) {
      checkpointStats.pagesFromCheckpoint++;
      checkpointStats.lastSkipped = offset - (after.position + 1);
    }
    return { rows: pageOf(await listTemplatesQueries(db, scope, filters, page, { match, after }).list), total: known };
  }
  if (filters.search && match === 'substring') {
    // The kept count per rank tier is the total, and says which tiers the page reads.
    const tierCounts = await searchTierCounts(db, scope, filters);
    const known = tierCounts.tiers.reduce((sum, n) => sum + n, 0);
    if ((page.page - 1) * page.limit >= known) return { rows: [], total: known };
    return { rows: pageOf(await listTemplatesQueries(db, scope, filters, page, { tierCounts }).list), total: known };
  }
  const { list, count: countQuery } = listTemplatesQueries(db, scope, filters, page, { match });
  if (!filters.search) {
    const [rows, n] = await Promise.all([list, page.page === 1 ? null : total(countQuery)]);
    return { rows: pageOf(rows), total: n ?? (rows.length < page.limit ? rows.length : await total(countQuery)) };
  }
  // Similar names: the matches' count comes with the page.
  const rows = await list;
  if (rows.length > 0) return { rows: pageOf(rows), total: Number(rows[0]!.matches) };
  // Past the end (or nothing matches): the count alone.
  return { rows: [], total: page.page === 1 ? 0 : await total(countQuery) };
}

/** A listed template and whether it has registry credentials (what the admin list adds). */
export type ListedRow = TemplateRow & { hasRegistryCredentials: boolean };

async function listRows(
  scope: CatalogScope,
  filters: TemplateFilters,
  page: Page,
  source: ReadSource = 'primary',
): Promise<{ rows: ListedRow[]; total: number }> {
  return readCatalog(source, async (db) => {
    const found = await listMatching(db, scope, filters, page, 'substring');
    if (found.total > 0 || !filters.search) return found;
    return listMatching(db, scope, filters, page, 'similar');
  });
}

/** `source`: 'replica' lets the read run on a caught-up replica (anonymous and instance-key callers). */
export async function listTemplates(
  scope: CatalogScope,
  filters: TemplateFilters,
  page: Page,
  source: ReadSource = 'primary',
): Promise<{ rows: TemplateRow[]; total: number }> {
  const { rows, total } = await listRows(scope, filters, page, source);
  return { rows: rows.map(({ hasRegistryCredentials: _, ...row }) => row), total };
}

/** The admin list: every template, with whether it has registry credentials (the same single query). */
export async function listTemplatesForAdmin(
  filters: TemplateFilters,
  page: Page,
): Promise<{ rows: ListedRow[]; total: number }> {
  const { rows, total } = await listRows({ kind: 'admin' }, filters, page);
  return { rows: rows.map((row) => ({ ...row, hasRegistryCredentials: Boolean(row.hasRegistryCredentials) })), total };
}

/**
 * Get-by-slug is the one catalog read that misses the response cache often (one entry per template and
 * caller scope), so it runs as a prepared statement per scope kind: planned once per connection.
 */
export function templateBySlugQuery(db: Db, scope: VisibilityScope, slug: string | Placeholder) {
  return db
    .select(templateSelection)
    .from(templates)
    .innerJoin(categories, eq(categories.id, templates.categoryId))
    .where(and(eq(templates.slug, slug), templateVisible(scope)));
}

function prepareBySlug(db: Db, kind: CatalogScope['kind']) {
  const scope: VisibilityScope = kind === 'org' ? { kind, orgId: sql.placeholder('orgId') } : { kind };
  return templateBySlugQuery(db, scope, sql.placeholder('slug')).prepare(`template_by_slug_${kind}`);
}
const bySlugStatements = new WeakMap<Db, Record<CatalogScope['kind'], ReturnType<typeof prepareBySlug>>>();

export async function findTemplateBySlug(
  scope: CatalogScope,
  slug: string,
  source: ReadSource = 'primary',
): Promise<TemplateRow | null> {
  return readCatalog(source, async (db) => {
    let statements = bySlugStatements.get(db);
    if (!statements) {
      statements = {
        admin: prepareBySlug(db, 'admin'),
        org: prepareBySlug(db, 'org'),
        anonymous: prepareBySlug(db, 'anonymous'),
      };
      bySlugStatements.set(db, statements);
    }
    const [row] = await statements[scope.kind].execute({ slug, orgId: scope.kind === 'org' ? scope.orgId : undefined });
    return row ?? null;
  });
}

/** The categories a scope sees with its template counts, unexecuted (the benchmark EXPLAINs it). */
export function listCategoriesQuery(db: Db, scope: CatalogScope) {
  // A sum over the category's few count buckets (maintained by triggers): never a scan of the catalog.
  // Conditions through drizzle operators: they qualify column names (a bare column in a sql`` fragment
  // of a single-table select is rendered unqualified, which would bind to the subquery's table).
  const counts = categoryTemplateCounts;
  const visibleCount = sql<number>`(
    select coalesce(sum(${counts.n}), 0)::int from ${counts}
     where ${and(eq(counts.categoryId, categories.id), templateVisible(scope, counts))})`;
  return db
    .select({ ...getTableColumns(categories), templateCount: visibleCount })
    .from(categories)
    .where(categoryVisible(scope))
    .orderBy(asc(categories.sortOrder), asc(categories.name), asc(categories.id));
}

export async function listCategories(scope: CatalogScope, source: ReadSource = 'primary') {
  return readCatalog(source, (db) => listCategoriesQuery(db, scope));
}
