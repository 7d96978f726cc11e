/**
 * The local catalog copy on Core's real database (PGlite, or PostgreSQL with CORE_TEST_DATABASE_URL):
 * a sync answer is applied together with its checked_at in one transaction — an answer that fails half-way
 * leaves the copy and the watermark as they were — and an answer for an older connection is never applied.
 * (The sync against a real Hub is tested in tests/loop/.)
 */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCoreContext, type CoreContext } from '../src/context';
import { hubConnection } from '../src/db/schema';
import { applySync, listCatalog, StaleConnection, type CatalogTemplate } from '../src/domain/catalog';
import { createCoreLogger } from '../src/log';
import { freshDatabase, testConfig } from './helpers';

let core: CoreContext;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let generation: Date;

const template = (slug: string, over: Partial<CatalogTemplate> = {}): CatalogTemplate => ({
  id: randomUUID(),
  slug,
  name: slug,
  description: `${slug} template`,
  version: '1',
  category_slug: 'tools',
  updated_at: new Date().toISOString(),
  env: [],
  env_schema: [],
  ...over,
});

async function state() {
  const [row] = await core.db.select().from(hubConnection).where(eq(hubConnection.id, 'hub'));
  const { templates } = await listCatalog(core.db, { page: 1, limit: 100 });
  return { checkedAt: row!.checkedAt, slugs: templates.map((t) => t.slug).sort() };
}

beforeAll(async () => {
  db = await freshDatabase();
  core = await createCoreContext(testConfig({ databaseUrl: db.databaseUrl }), createCoreLogger('silent'));
  generation = new Date('2026-01-01T00:00:00Z');
  await core.db
    .insert(hubConnection)
    .values({ hubUrl: 'http://hub.test', keyPrefix: 'svh_test', instanceId: randomUUID(), connectedAt: generation });
});
afterAll(async () => {
  await core?.close();
  await db?.drop();
});

it('applies a full sync, then updates (upsert by id, removals), each with its checked_at', async () => {
  const a = template('alpha');
  const b = template('beta');
  expect(
    await applySync(core.db, {
      full: true,
      templates: [a, b],
      removedIds: [],
      checkedAt: '2026-01-01T00:00:01Z',
      etag: null,
      generation,
    }),
  ).toMatchObject({ added: 2, updated: 0, removed: 0 });
  expect(await state()).toEqual({ checkedAt: '2026-01-01T00:00:01Z', slugs: ['alpha', 'beta'] });

  // b renamed to a slug a new template takes over from a removed one, in one answer.
  const c = template('beta');
  const counts = await applySync(core.db, {
    full: false,
    templates: [{ ...b, slug: 'beta-2', name: 'beta 2' }, c],
    removedIds: [a.id],
    checkedAt: '2026-01-01T00:00:02Z',
    etag: '"e1"',
    generation,
  });
  expect(counts).toEqual({ added: 1, updated: 1, removed: 1, checked_at: '2026-01-01T00:00:02Z' });
  expect(await state()).toEqual({ checkedAt: '2026-01-01T00:00:02Z', slugs: ['beta', 'beta-2'] });
});

it('an answer that fails half-way changes nothing: neither the copy nor the watermark', async () => {
  const before = await state();
  // Two templates claiming one slug: the insert fails after the removals and deletes already ran.
  const broken = [template('gamma'), template('gamma')];
  const [first] = (await listCatalog(core.db, { page: 1, limit: 1 })).templates;
  await expect(
    applySync(core.db, {
      full: false,
      templates: broken,
      removedIds: [first!.id],
      checkedAt: '2026-01-01T00:00:03Z',
      etag: null,
      generation,
    }),
  ).rejects.toThrow();
  expect(await state()).toEqual(before);
});

it('an answer for an older connection is not applied', async () => {
  const before = await state();
  await expect(
    applySync(core.db, {
      full: true,
      templates: [],
      removedIds: [],
      checkedAt: '2026-01-01T00:00:04Z',
      etag: null,
      generation: new Date('2025-12-31T00:00:00Z'),
    }),
  ).rejects.toThrow(StaleConnection);
  expect(await state()).toEqual(before);
});
