/**
 * The updates endpoint answers one bounded page in (updated_at, id) order. A client that only ever sends
 * since=<last checked_at> receives every template exactly once per change and stops, also when more
 * templates than a page share one updated_at (a bulk write) — and a sync from 1970 over 100,000
 * templates costs one page per request.
 */
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { UPDATES_PAGE_SIZE, parseSyncPoint } from '../../server/domain/catalog/updates';
import { api, createCategory, createTemplate } from '../helpers';

async function bulkInsert(categoryId: string, prefix: string, n: number, at: string) {
  const db = await getDb();
  await db.execute(sql`
    insert into templates (slug, name, image_name, category_id, created_at, updated_at)
    select ${prefix} || '-' || g, 'Bulk ' || g, 'x/bulk', ${categoryId}::uuid, ${at}::timestamptz, ${at}::timestamptz
      from generate_series(1, ${n}) g`);
}

async function syncAll(since: string, maxPolls: number) {
  const seen = new Map<string, number>();
  let polls = 0;
  for (;;) {
    const res = await api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`);
    expect(res.status).toBe(200);
    expect(res.body.templates.length + res.body.removed.length).toBeLessThanOrEqual(UPDATES_PAGE_SIZE);
    for (const t of res.body.templates) seen.set(t.slug, (seen.get(t.slug) ?? 0) + 1);
    expect(Date.parse(res.body.checked_at)).toBeGreaterThanOrEqual(Date.parse(since));
    since = res.body.checked_at;
    polls++;
    if (!res.body.has_more) return { seen, polls, since };
    expect(polls, 'the client must converge, not loop').toBeLessThan(maxPolls);
  }
}

it('a bulk write larger than a page under one updated_at is paged without loss, repeat or loop', async () => {
  const cat = await createCategory();
  await createTemplate({ categoryId: cat.id, slug: 'before-bulk', updatedAt: new Date('2001-01-01T00:00:00Z') });
  await bulkInsert(cat.id, 'tie', 1_234, '2001-06-01T00:00:00.123456Z');
  await createTemplate({ categoryId: cat.id, slug: 'after-bulk', updatedAt: new Date('2002-01-01T00:00:00Z') });

  const { seen, polls, since } = await syncAll('2000-01-01T00:00:00Z', 10);
  expect(seen.size).toBe(1_236);
  expect([...seen.values()].every((n) => n === 1)).toBe(true);
  expect(polls).toBe(Math.ceil(1_236 / UPDATES_PAGE_SIZE));
  // Converged: the next poll is idle and answers the same since.
  const idle = await api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`);
  expect(idle.body).toMatchObject({ templates: [], removed: [], checked_at: since, has_more: false });
});

it('a page that ends inside a tie names a point inside it, still a valid timestamp', async () => {
  const cat = await createCategory();
  await bulkInsert(cat.id, 'tie2', UPDATES_PAGE_SIZE + 3, '2003-03-03T03:03:03.030303Z');
  const first = await api('/catalog/templates/updates?since=2003-01-01T00:00:00Z');
  expect(first.body.has_more).toBe(true);
  expect(first.body.templates).toHaveLength(UPDATES_PAGE_SIZE);
  const point = parseSyncPoint(first.body.checked_at);
  expect(point.at).toBe('2003-03-03T03:03:03.030303Z');
  expect(point.afterId).toBe(first.body.templates.at(-1).id);
  const second = await api(`/catalog/templates/updates?since=${encodeURIComponent(first.body.checked_at)}`);
  expect(
    second.body.templates
      .map((t: any) => t.id)
      .filter((id: string) => first.body.templates.some((f: any) => f.id === id)),
  ).toEqual([]);
  expect(second.body.templates.filter((t: any) => t.slug.startsWith('tie2-'))).toHaveLength(3);
});

it('an anonymous sync from 1970 over 100,000 templates answers one page, with a bounded memory rise', async () => {
  const cat = await createCategory();
  await bulkInsert(cat.id, 'many', 100_000, '2010-01-01T00:00:00Z');
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const res = await api('/catalog/templates/updates?since=1970-01-01T00:00:00Z');
  const rise = process.memoryUsage().heapUsed - before;
  expect(res.status).toBe(200);
  expect(res.body.has_more).toBe(true);
  expect(res.body.templates.length).toBe(UPDATES_PAGE_SIZE);
  // One page is well under a megabyte; the whole catalog would be ~100 MB of rows and JSON.
  expect(rise).toBeLessThan(40 * 1024 * 1024);
}, 240_000); // 100,000 inserts into PGlite: minutes when the shared machine is busy
