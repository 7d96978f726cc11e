/**
 * The maintained per-category counts (category_template_counts, kept by triggers on templates) stay exact
 * through every catalog write: after each write, every scope's category counts and list totals equal a
 * direct COUNT over templates joined with categories, written out here independently of the Hub's queries.
 * Runs on PGlite by default and on PostgreSQL with DATABASE_URL.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { execRows, getDb } from '../../server/db/client';
import { catalogWrite } from '../../server/domain/catalog/writes';
import { api, unique } from '../helpers';
import { catalogScopes, type Scope } from './scopes';

const { callers, as, scopes } = catalogScopes();

/** The visibility rule of the spec, as a plain join: the reference the maintained counts must equal. */
async function directCounts(scope: Scope): Promise<Record<string, number>> {
  const visible = scope.admin
    ? sql`true`
    : scope.orgId
      ? sql`(t.org_id = ${scope.orgId} or (t.is_public and not c.is_private)
            or (c.is_private and exists (select 1 from access_grants g where g.org_id = ${scope.orgId} and g.category_id = c.id)))`
      : sql`(t.is_public and not c.is_private)`;
  const rows = await execRows<{ slug: string; n: number | string }>(
    await getDb(),
    sql`select c.slug, count(*) as n from templates t join categories c on c.id = t.category_id where ${visible} group by c.slug`,
  );
  return Object.fromEntries(rows.map((r) => [r.slug, Number(r.n)]));
}

/** Every scope: the categories endpoint's counts, and the list totals (all, per category, featured). */
async function expectExact(slugs: string[]) {
  for (const scope of scopes()) {
    const expected = await directCounts(scope);
    const listed = await api('/catalog/categories', { token: scope.token });
    expect(listed.status).toBe(200);
    const shown = Object.fromEntries(
      (listed.body.categories as { slug: string; template_count: number }[]).map((c) => [c.slug, c.template_count]),
    );
    for (const slug of slugs) {
      if (slug in shown) expect(shown[slug], `${scope.name}: ${slug}`).toBe(expected[slug] ?? 0);
      const total = await api(`/catalog/templates?category=${slug}&limit=1&page=2`, { token: scope.token });
      expect(total.body.pagination.total, `${scope.name}: list total of ${slug}`).toBe(expected[slug] ?? 0);
    }
    const all = await api('/catalog/templates?limit=1&page=2', { token: scope.token });
    expect(all.body.pagination.total, `${scope.name}: list total`).toBe(
      Object.values(expected).reduce((a, b) => a + b, 0),
    );
  }
  const adminCategories = await as('GET', '/admin/categories');
  const everything = await directCounts(scopes()[3]!);
  for (const c of adminCategories.categories as { slug: string; template_count: number }[]) {
    if (slugs.includes(c.slug)) expect(c.template_count, `admin listing: ${c.slug}`).toBe(everything[c.slug] ?? 0);
  }
}

describe('maintained category counts', () => {
  it('equal a direct COUNT after create, delete, move, privacy change, grant and revoke', async () => {
    const open = (await as('POST', '/admin/categories', { name: 'Open', slug: unique('open'), is_private: false }))
      .category;
    const closed = (await as('POST', '/admin/categories', { name: 'Closed', slug: unique('closed'), is_private: true }))
      .category;
    const slugs = [open.slug, closed.slug];
    const create = async (values: Record<string, unknown>) =>
      (await as('POST', '/admin/templates', { name: unique('t'), slug: unique('t'), image_name: 'nginx', ...values }))
        .template;

    // create: public, private owned by A, featured, in the private category, owned by B there
    const pub = await create({ category_id: open.id });
    const ownedA = await create({ category_id: open.id, is_public: false, org_id: callers.orgA.id });
    const featured = await create({ category_id: open.id, is_featured: true });
    const inClosed = await create({ category_id: closed.id });
    await create({ category_id: closed.id, is_public: false, org_id: callers.orgB.id });
    await expectExact(slugs);

    // grant and revoke
    const grant = (await as('POST', '/admin/catalog-access', { org_id: callers.orgA.id, category_id: closed.id }))
      .grant;
    await expectExact(slugs);
    await as('DELETE', '/admin/catalog-access', { id: grant.id });
    await expectExact(slugs);
    await as('POST', '/admin/catalog-access', { org_id: callers.orgB.id, category_id: closed.id });
    await expectExact(slugs);

    // move between categories, change privacy and owner of a template, feature it
    await as('PUT', '/admin/templates', { id: pub.id, category_id: closed.id });
    await expectExact(slugs);
    await as('PUT', '/admin/templates', { id: inClosed.id, category_id: open.id, is_public: false, is_featured: true });
    await expectExact(slugs);
    await as('PUT', '/admin/templates', { id: ownedA.id, org_id: callers.orgB.id, is_public: true });
    await expectExact(slugs);

    // privacy change of a category, both ways
    await as('PUT', '/admin/categories', { id: open.id, is_private: true });
    await expectExact(slugs);
    await as('PUT', '/admin/categories', { id: closed.id, is_private: false });
    await expectExact(slugs);

    // delete
    await as('DELETE', '/admin/templates', { id: featured.id });
    await as('DELETE', '/admin/templates', { id: pub.id });
    await expectExact(slugs);

    // a statement touching many rows at once (the triggers work per statement), in catalogWrite so that
    // cached answers are dropped as after any catalog write
    await catalogWrite(({ tx }) =>
      tx.execute(
        sql`update templates set is_public = not is_public, is_featured = not is_featured where category_id in (${open.id}, ${closed.id})`,
      ),
    );
    await expectExact(slugs);
    await catalogWrite(({ tx }) => tx.execute(sql`delete from templates where category_id = ${open.id}`));
    await expectExact(slugs);
  });
});
