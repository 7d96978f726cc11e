/**
 * checked_at never skips a change committed by a slow concurrent transaction: the poll waits for
 * catalog writers in flight (see server/domain/catalog/queries.ts syncWatermark).
 */
import { expect, it } from 'vitest';
import { templates } from '../server/db/schema';
import { catalogWrite } from '../server/domain/catalog/writes';
import { api, createCategory } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('a template written by a slow transaction reaches the client in this poll or the next', async () => {
  const cat = await createCategory();
  const start = await api('/catalog/templates/updates?since=2000-01-01T00:00:00Z');
  const since = start.body.checked_at as string;

  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let stamped = false;
  const writer = catalogWrite(async ({ tx, at }) => {
    await tx.insert(templates).values({ slug: 'slow-one', name: 'Slow', imageName: 'x/slow', categoryId: cat.id, createdAt: at, updatedAt: at });
    stamped = true;
    await gate; // the transaction stays open, its timestamp already taken
  });
  while (!stamped) await sleep(10);

  const pollDuring = api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`);
  await sleep(300);
  release();
  await writer;
  const first = await pollDuring;
  expect(first.status).toBe(200);
  const second = await api(`/catalog/templates/updates?since=${encodeURIComponent(first.body.checked_at)}`);

  const delivered = [...first.body.templates, ...second.body.templates].map((t: any) => t.slug);
  expect(delivered).toContain('slow-one');
  expect(Date.parse(first.body.checked_at)).toBeGreaterThanOrEqual(Date.parse(since));
});

it('checked_at as the next since re-sends nothing when nothing changed', async () => {
  const first = await api('/catalog/templates/updates?since=2000-01-01T00:00:00Z');
  await sleep(5);
  const second = await api(`/catalog/templates/updates?since=${encodeURIComponent(first.body.checked_at)}`);
  expect(second.body.templates).toEqual([]);
  expect(second.body.removed).toEqual([]);
});
