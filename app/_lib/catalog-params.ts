/**
 * Catalog browser state lives in the URL, and only there: the server page reads it to render the results, the
 * filter controls read it to show their values, and every control writes it back (shareable, reload and Back keep
 * it; the filter form is also a plain GET form to /).
 */
export type SearchParams = Record<string, string | string[] | undefined>;

export const PAGE_SIZE = 24;

export function readCatalogParams(params: SearchParams) {
  const one = (k: string) => {
    const v = params[k];
    return (Array.isArray(v) ? v[0] : v)?.trim() || undefined;
  };
  const page = Number(one('page') ?? '1');
  return {
    search: one('search'),
    category: one('category'),
    tags: normalizeTags(one('tags')),
    featured: one('featured') === 'true' ? true : undefined,
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

export type CatalogParams = ReturnType<typeof readCatalogParams>;

/** "llm, gpu,,"  → "llm,gpu" (the API's comma-separated list); empty → undefined. Case is kept: the server compares. */
export function normalizeTags(raw: string | undefined) {
  const tags = (raw ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return tags.length > 0 ? tags.join(',') : undefined;
}

export function catalogHref(base: CatalogParams, change: Partial<CatalogParams>) {
  const next = { ...base, ...change };
  const q = new URLSearchParams();
  const search = next.search?.trim();
  const tags = normalizeTags(next.tags);
  if (search) q.set('search', search);
  if (next.category) q.set('category', next.category);
  if (tags) q.set('tags', tags);
  if (next.featured) q.set('featured', 'true');
  if (next.page && next.page > 1) q.set('page', String(next.page));
  const s = q.toString();
  return s ? `/?${s}` : '/';
}

/** The catalog filtered by one tag (tag badges on cards and on the template page). */
export function tagHref(tag: string) {
  return catalogHref(readCatalogParams({}), { tags: tag });
}
