/**
 * A search's page in rank order: the substring tiers (and which of them a page reads, from where) and the
 * similar-names fallback. The tiers' counts are kept by tierCounts.ts; the list query (listQuery.ts) uses these pages.
 */
import { and, asc, like, notLike, sql, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { catalogEntries } from '../../db/schema';
import { escapeLike, tagPattern } from './filters';

const entries = catalogEntries;

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
export function tierOf(term: string): SQL {
  const [prefix, inside, tag] = searchTiers(term);
  return sql`case when ${prefix} then 0 when ${inside} then 1 when ${tag} then 2 else 3 end`;
}

/** The tie order inside a tier: the lower-cased name in byte order (an index expression), then id. */
export const tieOrder = sql`(${entries.searchName} collate "C")`;

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
  /** Passes that counted the matches per tier of a term and tag filter, for every scope (once per catalog generation). */
  tierCounts: 0,
  /** Tiers read by walking the name index; the rest went through the trigram index. */
  walkedTiers: 0,
  /** Pages read in the one pass that counts their term (searchPass: the term's first ask in a catalog generation). */
  rankedPages: 0,
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
export function tieredPage(
  db: Db,
  where: SQL | undefined,
  term: string,
  counts: TierCounts,
  limit: number,
  offset: number,
) {
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
export function similarPage(db: Db, where: SQL | undefined, term: string, limit: number, offset: number) {
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
