/**
 * checked_at never skips a change committed by a slow concurrent transaction: the poll waits for
 * catalog writers in flight (see server/domain/catalog/updates.ts syncWatermark).
 */
import { expect, it } from 'vitest';
import { templates } from '../../server/db/schema';
import { catalogWrite } from '../../server/domain/catalog/writes';
import { api, createCategory, createTemplate } from '../helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('a template written by a slow transaction reaches the client in this poll or the next', async () => {
  const cat = await createCategory();
  // An earlier change, so that the polls below have something to send and must take the watermark.
  await createTemplate({ categoryId: cat.id, slug: 'earlier-one' });
  const start = await api('/catalog/templates/updates?since=2000-01-01T00:00:00Z');
  const since = start.body.checked_at as string;
  expect(Date.parse(since)).toBeGreaterThan(Date.parse('2000-01-01T00:00:00Z'));

  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let stamped = false;
  const writer = catalogWrite(async ({ tx, at }) => {
    await tx.insert(templates).values({
      slug: 'slow-one',
      name: 'Slow',
      imageName: 'x/slow',
      categoryId: cat.id,
      createdAt: at,
      updatedAt: at,
    });
    stamped = true;
    await gate; // the transaction stays open, its timestamp already taken
  });
  while (!stamped) await sleep(10);

  // A since before earlier-one: the answer is not empty, so it must wait for the watermark.
  const pollDuring = api(`/catalog/templates/updates?since=2000-01-01T00:00:00.001Z`);
  await sleep(300);
  release();
  await writer;
  const first = await pollDuring;
  expect(first.status).toBe(200);
  const second = await api(`/catalog/templates/updates?since=${encodeURIComponent(first.body.checked_at)}`);

  const delivered = [...first.body.templates, ...second.body.templates].map((t: any) => t.slug);
  expect(delivered).toContain('slow-one');
  expect(first.body.templates.map((t: any) => t.slug)).toContain('earlier-one');
  expect(Date.parse(first.body.checked_at)).toBeGreaterThanOrEqual(Date.parse(since));
});

it('an idle poll re-sends nothing, keeps its since, and answers 304 to If-None-Match', async () => {
  const first = await api('/catalog/templates/updates?since=2000-01-01T00:00:00Z');
  await sleep(5);
  const path = `/catalog/templates/updates?since=${encodeURIComponent(first.body.checked_at)}`;
  const second = await api(path);
  expect(second.body.templates).toEqual([]);
  expect(second.body.removed).toEqual([]);
  expect(second.body.checked_at).toBe(first.body.checked_at);
  const third = await api(path, { headers: { 'if-none-match': second.headers.get('etag')! } });
  expect(third.status).toBe(304);
});
