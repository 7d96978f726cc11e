/**
 * The updates feed's change log (server/domain/catalog/updates.ts): a poll answered from memory gets exactly what the
 * database path answers — the same templates, removals and has_more, and a checked_at that is the same or an
 * equally final watermark (nothing changed between the two) — after creates, content updates, deletes, privacy and
 * category changes, owner changes and grants, for every kind of caller and for sync points before, at and inside
 * each change (a point with an id). And the log is what answers: one build per caller and catalog generation for
 * polls that come in increasing since order.
 */
import { beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { execRows, getDb } from '../../server/db/client';
import type { CatalogScope } from '../../server/domain/principal';
import { changeLogStats, templateUpdates } from '../../server/domain/catalog/updates';
import { createOrg, createUser } from '../helpers';
import { catalogChanges } from '../fixtures/catalog-changes';

let admin: string;
let orgA: { id: string };
let orgB: { id: string };
let scopes: Record<string, CatalogScope>;

/** A sync point inside a change's microsecond, just after that change (what a page that ends there sends). */
function pointAfter(stamp: string, id: string): string {
  return `${stamp}${BigInt(`0x${id.replaceAll('-', '')}`)
    .toString()
    .padStart(39, '0')}Z`;
}

/** The checked_at values answered so far (newest last): the sinces a fleet sends. */
const checkeds: string[] = [];

/**
 * The sinces worth asking about after a change: the epoch, the last checked_at values, and before, at and inside
 * (a point with an id) each of the newest changes and one older one.
 */
async function sincesToAsk(): Promise<string[]> {
  const points = new Set<string>(['2000-01-01T00:00:00Z', ...checkeds.slice(-3)]);
  for (const scope of Object.values(scopes)) {
    const full = await templateUpdates(scope, '2000-01-01T00:00:00Z', 'primary', { fromMemory: false });
    points.add(full.checkedAt);
    for (const r of full.removed.slice(-2)) points.add(r.removed_at);
  }
  const stamps = await execRows<{ id: string; stamp: string }>(
    await getDb(),
    sql`select id, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as stamp
          from templates order by updated_at desc, id desc`,
  );
  for (const { id, stamp } of [...stamps.slice(0, 3), ...stamps.slice(Math.floor(stamps.length / 2)).slice(0, 1)]) {
    points.add(`${stamp}Z`);
    points.add(new Date(Date.parse(`${stamp}Z`) - 1).toISOString());
    points.add(pointAfter(stamp, id));
  }
  return [...points].sort((x, y) => Date.parse(y) - Date.parse(x));
}

async function expectSameAnswers(step: string) {
  const points = await sincesToAsk();
  for (const [name, scope] of Object.entries(scopes)) {
    // Newest first (each older since builds the log again from it), then oldest first (served from the last build).
    for (const since of [...points, ...points.toReversed()]) {
      const fromMemory = await templateUpdates(scope, since, 'primary');
      const fromDatabase = await templateUpdates(scope, since, 'primary', { fromMemory: false });
      const what = `${name} since ${since} after ${step}`;
      expect(
        fromMemory.rows.map((t) => [t.id, t.updatedAt]),
        what,
      ).toEqual(fromDatabase.rows.map((t) => [t.id, t.updatedAt]));
      expect(fromMemory.rows, what).toEqual(fromDatabase.rows);
      expect(fromMemory.removed, what).toEqual(fromDatabase.removed);
      expect(fromMemory.hasMore, what).toBe(fromDatabase.hasMore);
      if (fromMemory.checkedAt !== fromDatabase.checkedAt) {
        // Two watermarks, the log's taken earlier: nothing changed between them. Either is a safe next since (an
        // answer without a change may keep since itself or name the log's watermark); the rows above are the same.
        expect(Date.parse(fromMemory.checkedAt), what).toBeLessThanOrEqual(Date.parse(fromDatabase.checkedAt));
        const between = await templateUpdates(scope, fromMemory.checkedAt, 'primary', { fromMemory: false });
        expect([...between.rows, ...between.removed], what).toEqual([]);
      }
      if (fromMemory.checkedAt !== since) checkeds.push(fromMemory.checkedAt);
    }
  }
}

beforeAll(async () => {
  admin = (await createUser({ role: 'admin' })).token;
  orgA = await createOrg();
  orgB = await createOrg();
  scopes = {
    anonymous: { kind: 'anonymous' },
    'org A': { kind: 'org', orgId: orgA.id },
    'org B': { kind: 'org', orgId: orgB.id },
    admin: { kind: 'admin' },
  };
});

it('answers from memory what the database answers, after every kind of change', async () => {
  const { create, addCategories, operations } = catalogChanges({ admin, orgs: [orgA, orgB], seed: 7, prefix: 'log' });
  await addCategories();
  for (let i = 0; i < 6; i++) await create();
  const before = changeLogStats();
  await expectSameAnswers('creates');
  const afterCreates = changeLogStats();
  // The log answered, and built at most once per since that was older than every earlier one (per caller).
  expect(afterCreates.served - before.served).toBeGreaterThan(0);
  expect(afterCreates.builds - before.builds).toBeLessThan(afterCreates.served - before.served);

  for (const [name, op] of Object.entries(operations)) {
    await op();
    await expectSameAnswers(name);
  }
  const after = changeLogStats();
  expect(after.served - afterCreates.served).toBeGreaterThan(0);
}, 120_000);
