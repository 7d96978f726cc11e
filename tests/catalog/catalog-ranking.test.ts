/**
 * Ranked search (README, "Search ranking"): a fixed catalog and, for a set of queries, the exact order
 * of the answer: the exact name, then names starting with the term, names containing it, a tag equal to
 * it (whatever its case), descriptions containing it; a misspelling finds the names with a close word, the closest name first. Paging through
 * a ranked answer gives every match once, in the same order.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { generation } from '../../server/db/invalidation';
import { templates } from '../../server/db/schema';
import { searchStats } from '../../server/domain/catalog/search';
import { catalogWrite } from '../../server/domain/catalog/writes';
import { api, createCategory, createTemplate } from '../helpers';

const names = (res: { body: any }) => res.body.templates.map((t: any) => t.name);

beforeAll(async () => {
  const cat = await createCategory({ slug: 'rank' });
  const fixture: [string, string, string[]][] = [
    ['Managed Postgres', 'Hosted relational database', []],
    ['Grafana', 'Dashboards for postgres metrics', ['dashboards']],
    ['Postgres Cluster', 'Replicated relational database', ['SQL', 'ha']],
    ['Redis', 'Key-value store', ['cache', 'NoSQL']],
    ['Postgres', 'The relational database', []],
    ['Analytics Warehouse', 'Columnar storage on postgres', []],
    ['Postgres Backup', 'Dumps and point-in-time recovery', []],
    // Matches "postgres" by a tag only (written in capitals): after every name match, before descriptions.
    ['Pgbouncer', 'Connection pooling', ['POSTGRES', 'pooling']],
  ];
  for (const [i, [name, description, tags]] of fixture.entries()) {
    // Featured flags that would reorder a plain list: ranking must not depend on them.
    await createTemplate({
      slug: `rank-${i}`,
      name,
      description,
      tags,
      categoryId: cat.id,
      isFeatured: name === 'Grafana',
    });
  }
});

describe('search ranking', () => {
  it('orders exact name, name prefix, name substring, tag, then description; ties by name', async () => {
    expect(names(await api('/catalog/templates?search=postgres'))).toEqual([
      'Postgres',
      'Postgres Backup',
      'Postgres Cluster',
      'Managed Postgres',
      'Pgbouncer',
      'Analytics Warehouse',
      'Grafana',
    ]);
  });

  it('finds templates by a tag equal to the term, whatever the case (a tag is matched whole)', async () => {
    expect(names(await api('/catalog/templates?search=sql'))).toEqual(['Postgres Cluster']);
    expect(names(await api('/catalog/templates?search=SQL'))).toEqual(['Postgres Cluster']);
    expect(names(await api('/catalog/templates?search=nosql'))).toEqual(['Redis']);
    expect(names(await api('/catalog/templates?search=Pooling'))).toEqual(['Pgbouncer']);
    // "dashboards" is both a tag and a word of the description of Grafana: one match, counted once.
    expect((await api('/catalog/templates?search=dashboards')).body.pagination.total).toBe(1);
  });

  it('ranks a prefix of several names before a word inside a name and a description', async () => {
    // "post" is no tag (tags match whole): Pgbouncer is not found.
    expect(names(await api('/catalog/templates?search=POST'))).toEqual([
      'Postgres',
      'Postgres Backup',
      'Postgres Cluster',
      'Managed Postgres',
      'Analytics Warehouse',
      'Grafana',
    ]);
    expect(names(await api('/catalog/templates?search=relational'))).toEqual([
      'Managed Postgres',
      'Postgres',
      'Postgres Cluster',
    ]);
    expect(names(await api('/catalog/templates?search=postgres%20cluster'))).toEqual(['Postgres Cluster']);
  });

  it('finds a misspelling through trigram similarity, the closest name first', async () => {
    expect(names(await api('/catalog/templates?search=postgress'))).toEqual([
      'Postgres',
      'Postgres Backup',
      'Managed Postgres',
      'Postgres Cluster',
    ]);
    expect(names(await api('/catalog/templates?search=grafanna'))).toEqual(['Grafana']);
    expect(names(await api('/catalog/templates?search=zzzqqq'))).toEqual([]);
  });

  it('pages a ranked answer consistently: every match once, same order, true total', async () => {
    const all = names(await api('/catalog/templates?search=postgres'));
    const paged: string[] = [];
    for (let page = 1; page <= 5; page++) {
      const res = await api(`/catalog/templates?search=postgres&limit=2&page=${page}`);
      expect(res.body.pagination).toEqual({ page, limit: 2, total: 7, totalPages: 4 });
      paged.push(...names(res));
    }
    expect(paged).toEqual(all);
    const typo = await api('/catalog/templates?search=postgress&limit=3&page=2');
    expect(typo.body.pagination.total).toBe(4);
    expect(names(typo)).toEqual(['Postgres Cluster']);
  });

  it('keeps the catalog order (featured first, then name) without a search', async () => {
    expect(names(await api('/catalog/templates?category=rank')).slice(0, 3)).toEqual([
      'Grafana',
      'Analytics Warehouse',
      'Managed Postgres',
    ]);
  });
});

/**
 * A common term: a page reads only the rank tiers it covers, from a cached count per tier. Every page is
 * checked against the order computed here from the fixture (tier, then the lower-cased name in byte order),
 * across tier boundaries, with the long name tier walked in index order and the short ones read through the
 * trigram index; a write is counted at once.
 */
describe('search ranking over many matches', () => {
  const term = 'quasar';
  const fixture: { name: string; description: string; tags: string[]; tier: number }[] = [];
  for (let i = 0; i < 4; i++) fixture.push({ name: `Quasar Edition ${i}`, description: 'x', tags: [], tier: 0 });
  fixture.push({ name: 'quasar', description: 'the term itself', tags: [], tier: 0 });
  for (let i = 0; i < 90; i++)
    fixture.push({
      name: `Relay ${String.fromCharCode(97 + (i % 26))}${i} QUASAR node`,
      description: 'y',
      tags: [],
      tier: 1,
    });
  for (let i = 0; i < 6; i++) fixture.push({ name: `Beacon ${i}`, description: 'z', tags: ['Quasar'], tier: 2 });
  for (let i = 0; i < 7; i++)
    fixture.push({ name: `Archive ${i}`, description: `stores quasar data ${i}`, tags: [], tier: 3 });
  for (let i = 0; i < 60; i++)
    fixture.push({ name: `Filler ${i}`, description: 'nothing to see', tags: ['misc'], tier: -1 });
  const expected = fixture
    .filter((t) => t.tier >= 0)
    .sort((a, b) => a.tier - b.tier || (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1))
    .map((t) => t.name);

  beforeAll(async () => {
    const cat = await createCategory({ slug: 'rank-many' });
    await catalogWrite(({ tx, at }) =>
      tx.insert(templates).values(
        fixture.map((t, i) => ({
          ...t,
          tier: undefined,
          slug: `rank-many-${i}`,
          imageName: `example/rank-many-${i}`,
          categoryId: cat.id,
          createdAt: at,
          updatedAt: at,
        })),
      ),
    );
  });

  it('gives every page in tier order, whatever tiers the page spans, with the true total', async () => {
    const walkedBefore = searchStats.walkedTiers;
    const countsBefore = searchStats.tierCounts;
    const generationBefore = generation('catalog');
    let pages = 0;
    for (const limit of [7, 20, 50]) {
      const paged: string[] = [];
      for (let page = 1; page <= Math.ceil(expected.length / limit) + 1; page++) {
        const res = await api(`/catalog/templates?search=${term}&limit=${limit}&page=${page}`);
        expect(res.body.pagination.total).toBe(expected.length);
        paged.push(...names(res));
        pages++;
      }
      expect(paged).toEqual(expected);
    }
    // The tier of 90 name matches was walked in index order; the counts were taken once per catalog
    // generation (on PostgreSQL the notification of the fixture's own write may still arrive and move it).
    expect(searchStats.walkedTiers).toBeGreaterThan(walkedBefore);
    expect(searchStats.tierCounts - countsBefore).toBeLessThanOrEqual(1 + generation('catalog') - generationBefore);
    expect(searchStats.tierCounts - countsBefore).toBeLessThan(pages / 4);
  });

  it('counts a write at once: a new match is in its place and in the total, a removed one is gone', async () => {
    expect((await api(`/catalog/templates?search=${term}&limit=5`)).body.pagination.total).toBe(expected.length);
    const cat = await createCategory({ slug: 'rank-many-more' });
    const added = await createTemplate({ name: 'Quasar Aardvark', categoryId: cat.id });
    const first = await api(`/catalog/templates?search=${term}&limit=5`);
    expect(first.body.pagination.total).toBe(expected.length + 1);
    expect(names(first)).toEqual(['quasar', 'Quasar Aardvark', ...expected.slice(1, 4)]);
    await catalogWrite(({ tx }) => tx.delete(templates).where(eq(templates.id, added.id)));
    const after = await api(`/catalog/templates?search=${term}&limit=5`);
    expect(after.body.pagination.total).toBe(expected.length);
    expect(names(after)).toEqual(expected.slice(0, 5));
  });
});
