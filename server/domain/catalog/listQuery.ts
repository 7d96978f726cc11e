/** The list and count queries of a catalog page, built but not executed (the list runs them; the benchmark EXPLAINs them). */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { catalogEntries, categories, categoryTemplateCounts, templates } from '../../db/schema';
import type { Page } from '../paginate';
import type { CatalogScope } from '../principal';
import { categoryIdOf, countedByCategory, templateFilterSql, type SearchMatch, type TemplateFilters } from './filters';
import { similarPage, tieredPage, tierOf, type TierCounts } from './search';
import { templateSelection } from './templateRow';
import { templateVisible } from './visibility';

const entries = catalogEntries;

/** The outer order of a page's templates: featured first (DESC NULLS LAST, like featured_rank ascending). */
const featuredFirst = (column: AnyPgColumn) => sql`${column} desc nulls last`;

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
  /** A page chosen already (searchPass: its term's first ask), in rank order: its templates are read by id. */
  ids?: string[];
  /** Start after this entry, which is at 0-based `position` of the list (keyset pagination). */
  after?: { key: OrderKey; position: number };
}

/** Templates chosen by id, in the given order (rank: the position; a JSON parameter, one value for any length). */
function chosenIds(db: Db, ids: string[]) {
  return db
    .select({
      id: sql<string>`u.id::uuid`.as('chosen_id'), // a name no joined table has
      rank: sql<number>`u.ord`.as('rank'),
      tie: sql<string>`''`.as('tie'),
    })
    .from(sql`jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) with ordinality as u(id, ord)`)
    .as('chosen');
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
    (options.ids
      ? chosenIds(db, options.ids)
      : filters.search
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
