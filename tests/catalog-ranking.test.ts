/**
 * Ranked search (README, "Search ranking"): a fixed catalog and, for a set of queries, the exact order
 * of the answer: the exact name, then names starting with the term, names containing it, a tag equal to
 * it (whatever its case), descriptions containing it; a misspelling finds the names with a close word, the closest name first. Paging through
 * a ranked answer gives every match once, in the same order.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createCategory, createTemplate } from './helpers';

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
