/**
 * Deep pages of a long list start from checkpoints of the catalog order (every 1,000th entry, kept until
 * the next catalog write): every page equals the same slice of the order computed directly in SQL, before
 * and after a write that shifts every position.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { execRows, getDb } from '../../server/db/client';
import { checkpointStats } from '../../server/domain/catalog/checkpoints';
import { catalogWrite } from '../../server/domain/catalog/writes';
import { api, createCategory, createTemplate } from '../helpers';

const N = 2_345;
let categoryId: string;

beforeAll(async () => {
  const cat = await createCategory({ slug: 'deep' });
  categoryId = cat.id;
  await catalogWrite(({ tx, at }) =>
    tx.execute(sql`
      insert into templates (name, slug, description, image_name, category_id, is_featured, is_public, created_at, updated_at)
      select 'Deep ' || lpad(((g * 7919) % ${N})::text, 5, '0') || case when g % 3 = 0 then ' twin' else '' end,
             'deep-' || g, 'filler', 'example/deep', ${categoryId}, g % 97 = 0, g % 11 <> 0, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
        from generate_series(1, ${N}) as g`),
  );
});

/** The catalog order of what an anonymous caller sees in the category, straight from templates. */
async function expectedSlugs(): Promise<string[]> {
  const rows = await execRows<{ slug: string }>(
    await getDb(),
    sql`select slug from templates where category_id = ${categoryId} and is_public order by is_featured desc, name, id`,
  );
  return rows.map((r) => r.slug);
}

async function page(n: number, limit = 100, extra = '') {
  const res = await api(`/catalog/templates?category=deep&limit=${limit}&page=${n}${extra}`);
  expect(res.status).toBe(200);
  return {
    slugs: (res.body.templates as { slug: string }[]).map((t) => t.slug),
    total: res.body.pagination.total as number,
  };
}

describe('deep pages', () => {
  it('equal the direct order at every depth, before and after a write that shifts them', async () => {
    let expected = await expectedSlugs();
    expect(expected.length).toBeGreaterThan(2_000);
    for (const n of [1, 10, 11, 12, 20, 21, 22]) {
      const got = await page(n);
      expect(got.total).toBe(expected.length);
      expect(got.slugs, `page ${n}`).toEqual(expected.slice((n - 1) * 100, n * 100));
    }
    // A page straddling a checkpoint, with an odd limit.
    expect((await page(34, 30)).slugs).toEqual(expected.slice(990, 1020));

    // A template sorting first moves every position by one; the checkpoints must follow.
    await createTemplate({ slug: 'deep-first', name: 'Deep 0', categoryId, isFeatured: true });
    expected = await expectedSlugs();
    expect(expected[0]).toBe('deep-first');
    for (const n of [11, 21])
      expect((await page(n, 100, '&v=2')).slugs, `page ${n} after the write`).toEqual(
        expected.slice((n - 1) * 100, n * 100),
      );
  });

  it('start from a checkpoint: read once per catalog generation, then each deep page skips fewer than 1,000 entries', async () => {
    const before = { ...checkpointStats };
    await page(1, 50, '&featured=false');
    expect(checkpointStats.pagesFromCheckpoint).toBe(before.pagesFromCheckpoint);

    // (Requests no earlier test made: the response cache would answer those.)
    // Offset 1,050: the checkpoint at entry 1,000 (position 999) is the start; 50 entries are skipped.
    await page(22, 50);
    expect(checkpointStats.pagesFromCheckpoint).toBe(before.pagesFromCheckpoint + 1);
    expect(checkpointStats.lastSkipped).toBe(50);
    const reads = checkpointStats.reads;
    // Offset 2,000: the checkpoint at entry 2,000 exactly, nothing skipped; the same checkpoints, not read again.
    await page(41, 50);
    expect(checkpointStats.pagesFromCheckpoint).toBe(before.pagesFromCheckpoint + 2);
    expect(checkpointStats.lastSkipped).toBe(0);
    expect(checkpointStats.reads).toBe(reads);

    // A write moves the generation: the next deep page reads them again.
    await createTemplate({ slug: 'deep-second', name: 'Deep 00', categoryId });
    await page(11, 100);
    expect(checkpointStats.reads).toBe(reads + 1);
    expect(checkpointStats.pagesFromCheckpoint).toBe(before.pagesFromCheckpoint + 3);
  });
});
