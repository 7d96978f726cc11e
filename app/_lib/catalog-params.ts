/** Catalog browser state lives in the URL (shareable, works without JavaScript). */
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
    tags: one('tags'),
    featured: one('featured') === 'true' ? true : undefined,
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

export type CatalogParams = ReturnType<typeof readCatalogParams>;

export function catalogHref(base: CatalogParams, change: Partial<CatalogParams>) {
  const next = { ...base, ...change };
  const q = new URLSearchParams();
  if (next.search) q.set('search', next.search);
  if (next.category) q.set('category', next.category);
  if (next.tags) q.set('tags', next.tags);
  if (next.featured) q.set('featured', 'true');
  if (next.page && next.page > 1) q.set('page', String(next.page));
  const s = q.toString();
  return s ? `/?${s}` : '/';
}
