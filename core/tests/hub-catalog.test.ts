/**
 * The local catalog copy on Core's real database (PGlite, or PostgreSQL with CORE_TEST_DATABASE_URL):
 * a sync answer is applied together with its checked_at in one transaction — an answer that fails half-way
 * leaves the copy and the watermark as they were — and an answer for an older connection is never applied.
 * (The sync against a real Hub is tested in tests/loop/.)
 */
import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCoreContext, type CoreContext } from '../src/context';
import { activity, hubConnection } from '../src/db/schema';
import type { Actor } from '../src/domain/activity';
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

it('records what a sync changed, with the change, as whoever ran it (issue 37: "added: 0" for the sync that added 29)', async () => {
  await core.db.delete(activity);
  const records = async () =>
    (await core.db.select().from(activity).where(eq(activity.action, 'catalog.sync')).orderBy(asc(activity.id))).map(
      (r) => ({ actor: r.actor, via: r.via, after: r.after }),
    );
  const fresh = [template('gamma'), template('delta'), template('epsilon')];
  // The loop's full sync (no actor: the system) fills the copy: its record says what it added.
  const counts = await applySync(core.db, {
    full: true,
    templates: fresh,
    removedIds: [],
    checkedAt: '2026-01-01T00:00:10Z',
    etag: null,
    generation,
  });
  expect(counts).toMatchObject({ added: 3, removed: 2 });
  // A sync asked for a moment later finds nothing new: no record of changes (the route records who asked).
  const admin: Actor = { kind: 'local', id: randomUUID(), label: 'admin@core.test', via: 'api' };
  await applySync(core.db, {
    full: false,
    templates: [],
    removedIds: [],
    checkedAt: '2026-01-01T00:00:11Z',
    etag: '"e2"',
    generation,
    actor: admin,
  });
  // One that changes something is recorded as the caller's.
  await applySync(core.db, {
    full: false,
    templates: [{ ...fresh[0]!, description: 'changed' }],
    removedIds: [fresh[1]!.id],
    checkedAt: '2026-01-01T00:00:12Z',
    etag: '"e3"',
    generation,
    actor: admin,
  });
  expect(await records()).toEqual([
    {
      actor: 'system',
      via: 'system',
      after: { added: 3, updated: 0, removed: 2, full: true },
    },
    {
      actor: 'admin@core.test',
      via: 'api',
      after: { added: 0, updated: 1, removed: 1, full: false },
    },
  ]);

  // A sync that fails half-way records nothing either (the record is part of its transaction).
  await expect(
    applySync(core.db, {
      full: false,
      templates: [template('theta'), template('theta')],
      removedIds: [],
      checkedAt: '2026-01-01T00:00:13Z',
      etag: null,
      generation,
      actor: admin,
    }),
  ).rejects.toThrow();
  expect(await records()).toHaveLength(2);
});
