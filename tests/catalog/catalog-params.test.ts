/** The catalog's URL state (app/_lib/catalog-params.ts): what the page reads is what the controls write. */
import { describe, expect, it } from 'vitest';
import { catalogHref, normalizeTags, readCatalogParams, tagHref } from '../../app/_lib/catalog-params';

const fromHref = (href: string) => readCatalogParams(Object.fromEntries(new URL(href, 'http://hub.test').searchParams));

describe('catalog URL state', () => {
  it('round-trips every filter through the URL', () => {
    const params = {
      search: 'graf ana',
      category: 'monitoring',
      tags: 'metrics,GPU',
      featured: true as const,
      page: 3,
    };
    const href = catalogHref(readCatalogParams({}), params);
    expect(href).toBe('/?search=graf+ana&category=monitoring&tags=metrics%2CGPU&featured=true&page=3');
    expect(fromHref(href)).toEqual(params);
  });

  it('leaves out empty filters and page 1', () => {
    expect(catalogHref(readCatalogParams({ search: '  ', tags: ' , ', page: '1' }), {})).toBe('/');
    expect(catalogHref(fromHref('/?category=web&page=4'), { category: undefined, page: 1 })).toBe('/');
  });

  it('tidies the tag list and keeps its case (the server compares)', () => {
    expect(normalizeTags(' llm,  GPU ,,')).toBe('llm,GPU');
    expect(normalizeTags(' , ')).toBeUndefined();
    expect(readCatalogParams({ tags: 'a, b' }).tags).toBe('a,b');
  });

  it('reads bad pages as page 1 and the first of repeated parameters', () => {
    for (const page of ['0', '-2', '1.5', 'abc', '']) expect(readCatalogParams({ page }).page).toBe(1);
    expect(readCatalogParams({ category: ['databases', 'web'] }).category).toBe('databases');
    expect(readCatalogParams({ featured: 'yes' }).featured).toBeUndefined();
  });

  it('links a tag to the catalog filtered by it alone, encoded', () => {
    expect(tagHref('gpu')).toBe('/?tags=gpu');
    expect(tagHref('c++ & go')).toBe('/?tags=c%2B%2B+%26+go');
    expect(fromHref(tagHref('c++ & go')).tags).toBe('c++ & go');
  });
});
