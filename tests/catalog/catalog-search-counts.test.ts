/**
 * A search's total (pagination.total) is exact for every kind of term people type — a word most templates hold,
 * a prefix of it, a number, a word of one name — for every scope, with the category, featured and tag filters,
 * and after every catalog write: the kept counts (tierCounts.ts, counted once per catalog generation and term for
 * all scopes) never answer from before a write. The reference is a direct COUNT over templates with the
 * visibility rule and the match written out here, independently of the Hub's queries.
 * Runs on PGlite by default and on PostgreSQL with DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { execRows, getDb } from '../../server/db/client';
import { generation } from '../../server/db/invalidation';
import { catalogWrite, sqlTimestamp } from '../../server/domain/catalog/writes';
import { searchStats } from '../../server/domain/catalog/search';
import { api, unique } from '../helpers';
import { catalogScopes, type Scope } from './scopes';

const { callers, as, scopes } = catalogScopes();

// Words no other test's templates hold: letters only (a run's own), and a number of eight digits.
const letters = (n: number) => [...randomBytes(n)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
const common = `qz${letters(7)}`;
const number = String(10_000_000 + (randomBytes(3).readUIntBE(0, 3) % 89_999_999));
const terms = [common, common.slice(0, 4), common.slice(0, 6), number, number.slice(2, 6)];

type Filters = { category?: string; featured?: boolean; tags?: string[] };

/** The spec's visibility and match, as a plain join: a substring of the name or description, or a tag equal to it. */
async function directTotal(scope: Scope, term: string, filters: Filters): Promise<number> {
  const visible = scope.admin
    ? sql`true`
    : scope.orgId
      ? sql`(t.org_id = ${scope.orgId} or (t.is_public and not c.is_private)
            or (c.is_private and exists (select 1 from access_grants g where g.org_id = ${scope.orgId} and g.category_id = c.id)))`
      : sql`(t.is_public and not c.is_private)`;
  const pattern = `%${term.toLowerCase()}%`;
  const tags = filters.tags?.join(',') ?? null;
  const [row] = await execRows<{ n: number | string }>(
    await getDb(),
    sql`select count(*) as n from templates t join categories c on c.id = t.category_id
         where ${visible}
           and (lower(t.name) like ${pattern} or lower(t.description) like ${pattern}
                or exists (select 1 from unnest(t.tags) tag where lower(tag) = ${term.toLowerCase()}))
           and (${filters.category ?? null}::text is null or c.slug = ${filters.category ?? null})
           and (not ${filters.featured ?? false} or t.is_featured)
           and (${tags}::text is null
                or exists (select 1 from unnest(t.tags) tag where lower(tag) = any(string_to_array(${tags}, ','))))`,
  );
  return Number(row!.n);
}

/** Every term, scope and filter: the API's total equals the direct count (page 2 of 1: the total alone). */
async function expectExact(filterSets: Filters[]) {
  for (const scope of scopes()) {
    for (const term of terms) {
      for (const filters of filterSets) {
        const q = new URLSearchParams({ search: term, limit: '1', page: '2' });
        if (filters.category) q.set('category', filters.category);
        if (filters.featured) q.set('featured', 'true');
        if (filters.tags) q.set('tags', filters.tags.join(','));
        const res = await api(`/catalog/templates?${q}`, { token: scope.token });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const expected = await directTotal(scope, term, filters);
        expect(res.body.pagination.total, `${scope.name}: ${q}`).toBe(expected);
      }
    }
  }
}

/**
 * Runs a catalog write and waits for this process to see its change (on PostgreSQL the generation moves when the
 * write's NOTIFY comes back, after the answer): a read right after it would otherwise count again late.
 */
async function written<T>(write: () => Promise<T>): Promise<T> {
  const from = generation('catalog');
  const result = await write();
  for (const until = Date.now() + 5_000; generation('catalog') === from && Date.now() < until;)
    await new Promise((r) => setTimeout(r, 5));
  // And until no further change arrives for a moment (a write may announce more than once).
  for (let seen = generation('catalog'), quiet = 0; quiet < 20; seen = generation('catalog')) {
    await new Promise((r) => setTimeout(r, 5));
    quiet = generation('catalog') === seen ? quiet + 1 : 0;
  }
  return result;
}

describe('search totals', () => {
  it('are exact for common words, prefixes and numbers, per scope and filter, after every write', async () => {
    const open = (await as('POST', '/admin/categories', { name: 'Open', slug: unique('open'), is_private: false }))
      .category;
    const closed = (await as('POST', '/admin/categories', { name: 'Closed', slug: unique('closed'), is_private: true }))
      .category;
    const create = async (values: Record<string, unknown>) =>
      (await as('POST', '/admin/templates', { name: unique('t'), slug: unique('t'), image_name: 'nginx', ...values }))
        .template;
    const filterSets: Filters[] = [{}, { category: open.slug }, { featured: true }, { tags: ['gpu'] }];

    // The common word in descriptions, names and tags; the number in names and descriptions.
    const made = [];
    for (let i = 0; i < 6; i++) {
      made.push(
        await create({
          category_id: i % 3 === 2 ? closed.id : open.id,
          description: `A ${common} service, build ${number}`,
          tags: i % 2 ? ['gpu'] : ['web'],
          is_featured: i === 1,
          ...(i === 3 ? { is_public: false, org_id: callers.orgA.id } : {}),
        }),
      );
    }
    const named = await create({ category_id: open.id, name: `${common.toUpperCase()} Gateway ${number}` });
    const tagged = await create({ category_id: closed.id, tags: [common, 'gpu'] });
    await expectExact(filterSets);

    // Counted once per term and tag filter for all four scopes and both category and featured filters.
    const before = searchStats.tierCounts;
    await written(() => as('PUT', '/admin/templates', { id: named.id, description: 'renamed' }));
    await expectExact([{}, { category: open.slug }, { featured: true }]);
    expect(searchStats.tierCounts - before).toBe(terms.length);

    // A grant, then its revocation, change what org B sees.
    const grant = (await as('POST', '/admin/catalog-access', { org_id: callers.orgB.id, category_id: closed.id }))
      .grant;
    await expectExact(filterSets);
    await as('DELETE', '/admin/catalog-access', { id: grant.id });
    await expectExact(filterSets);

    // The term leaves a name and enters a tag; a template changes owner, privacy and category; one is deleted.
    await as('PUT', '/admin/templates', { id: named.id, name: unique('plain') });
    await as('PUT', '/admin/templates', { id: made[0].id, tags: [common], description: 'no words' });
    await as('PUT', '/admin/templates', { id: made[3].id, org_id: callers.orgB.id, category_id: closed.id });
    await as('PUT', '/admin/templates', {
      id: made[4].id,
      is_public: false,
      org_id: callers.orgA.id,
      is_featured: true,
    });
    await expectExact(filterSets);
    await as('DELETE', '/admin/templates', { id: tagged.id });
    await as('PUT', '/admin/categories', { id: closed.id, is_private: false });
    await expectExact(filterSets);
  });
});

describe('deep search pages', () => {
  it('chosen in the pass that counts their term equal the pages read by tier once counted, for every scope', async () => {
    const open = (await as('POST', '/admin/categories', { name: 'Deep', slug: unique('deep'), is_private: false }))
      .category;
    const term = `qd${letters(6)}`;
    // 300 matches over the four tiers (name prefix, inside the name, a tag, the description), 1 in 6 owned by org A.
    const insert = () =>
      catalogWrite(({ tx, at }) =>
        tx.execute(sql`
          insert into templates (name, slug, description, image_name, category_id, tags, is_public, org_id, created_at, updated_at)
          select case i % 4 when 0 then ${term} || ' ' || i when 1 then 'a' || i || ${term} else 'plain ' || i end,
                 ${term} || '-' || i,
                 case i % 4 when 3 then 'has ' || ${term} else 'nothing' end,
                 'nginx', ${open.id}::uuid,
                 case i % 4 when 2 then array[${term}] else array['web'] end,
                 i % 6 <> 0, case when i % 6 = 0 then ${callers.orgA.id}::uuid end, ${sqlTimestamp(at)}, ${sqlTimestamp(at)}
            from generate_series(1, 300) as g(i)`),
      );
    await written(insert);
    const pages = [201, 230, 249, 262];
    const read = async (token: string | null, limit: number, p: number) => {
      const res = await api(`/catalog/templates?search=${term}&limit=${limit}&page=${p}`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { ids: (res.body.templates as { id: string }[]).map((t) => t.id), total: res.body.pagination.total };
    };
    for (const scope of scopes()) {
      const ranked = searchStats.rankedPages;
      const beside = [];
      for (const p of pages) {
        // A write first: the term is counted anew, so this deep page is chosen in the pass that counts it.
        await written(() => as('PUT', '/admin/categories', { id: open.id, description: unique('d') }));
        beside.push(await read(scope.token, 1, p));
      }
      expect(searchStats.rankedPages - ranked, scope.name).toBe(pages.length);
      // The same entries read by tier once counted: offsets 200–299 in one page (another URL: no cached answer).
      const window = await read(scope.token, 100, 3);
      expect(searchStats.rankedPages - ranked, scope.name).toBe(pages.length);
      expect(
        beside.map((b) => b.ids),
        scope.name,
      ).toEqual(pages.map((p) => window.ids.slice(p - 201, p - 200)));
      expect(window.total, scope.name).toBe(await directTotal(scope, term, {}));
      expect(beside.map((b) => b.total)).toEqual(pages.map(() => window.total));
      // Every scope sees 250 or 300 of them: a row on each page before the end, none after it.
      expect(
        beside.map((b) => b.ids.length),
        scope.name,
      ).toEqual(pages.map((p) => (p <= window.total ? 1 : 0)));
    }
  });
});
