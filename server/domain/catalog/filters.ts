/** The catalog's filters (category, search term, featured, tags) as SQL over the read model, catalog_entries. */
import { eq, like, or, sql, type SQL } from 'drizzle-orm';
import { catalogEntries } from '../../db/schema';

export interface TemplateFilters {
  category?: string;
  search?: string;
  featured?: boolean;
  tags?: string[];
}

export function escapeLike(term: string) {
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

export const categoryIdOf = (slug: string) =>
  sql`(select c_filter.id from categories c_filter where c_filter.slug = ${slug})`;

/** Tags as the read model keeps them: lower-cased (migration 0005), so a tag matches whatever its case. */
const foldedTags = (tags: string[]) =>
  sql`array[${sql.join(
    tags.map((t) => sql`lower(${t})`),
    sql`, `,
  )}]::text[]`;

/** A tag equal to the term, within search_tags (every tag between unit separators; trigram-indexed). */
export const tagPattern = (term: string) => sql`lower(${`%\x1f${escapeLike(term)}\x1f%`})`;

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

/** True when the maintained counts answer the total: no filter that needs the rows themselves. */
export function countedByCategory(filters: TemplateFilters) {
  return !filters.search && !(filters.tags && filters.tags.length > 0);
}
