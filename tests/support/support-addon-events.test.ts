import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { addonAuditEvents } from '../../server/db/schema';
import { listAddonEvents } from '../../server/domain/support/addonEvents';
import { api } from '../helpers';
import { EXPECTED_REFUSALS, refusals, supportWorld } from '../support-helpers';

const event = (over: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  addon: 'backup',
  action: 'snapshot.create',
  actor: 'alice@example.com',
  occurred_at: '2026-03-01T10:00:00Z',
  details: { volume: 'data', size_bytes: 1024 },
  ...over,
});

const send = (token: string | null, events: unknown) =>
  api('/addon-audit-events', { method: 'POST', token, body: { events } });

async function storedFor(keyId: string) {
  const db = await getDb();
  return db.select().from(addonAuditEvents).where(eq(addonAuditEvents.instanceKeyId, keyId));
}

describe('POST /addon-audit-events', () => {
  it('stores a batch against the key’s organization and instance', async () => {
    const { org, key } = await supportWorld();
    const batch = [
      event(),
      event({ actor: undefined, details: undefined }),
      event({ actor: null, details: null, occurred_at: '2026-03-01T12:00:00.123+02:00' }),
    ];
    const res = await send(key.secret, batch);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 3, duplicates: 0 });
    const rows = await storedFor(key.id);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.orgId === org.id && r.instanceKeyId === key.id)).toBe(true);
    const first = rows.find((r) => r.id === batch[0]!.id)!;
    expect(first).toMatchObject({
      addon: 'backup',
      action: 'snapshot.create',
      actor: 'alice@example.com',
      details: { volume: 'data', size_bytes: 1024 },
    });
    expect(first.occurredAt.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(rows.find((r) => r.id === batch[2]!.id)!.occurredAt.toISOString()).toBe('2026-03-01T10:00:00.123Z');
    expect(rows.find((r) => r.id === batch[1]!.id)).toMatchObject({ actor: null, details: null });
  });

  it('is idempotent by id: a re-sent batch records nothing twice, overlaps and in-batch repeats count as duplicates', async () => {
    const { key } = await supportWorld();
    const batch = Array.from({ length: 20 }, () => event());
    expect((await send(key.secret, batch)).body).toEqual({ accepted: 20, duplicates: 0 });
    expect((await send(key.secret, batch)).body).toEqual({ accepted: 0, duplicates: 20 });
    const more = [...batch.slice(0, 5), event(), event()];
    expect((await send(key.secret, more)).body).toEqual({ accepted: 2, duplicates: 5 });
    const twice = event();
    expect((await send(key.secret, [twice, { ...twice, action: 'changed' }])).body).toEqual({
      accepted: 1,
      duplicates: 1,
    });
    // Upper-case spelling of an id is the same id.
    expect((await send(key.secret, [{ ...twice, id: twice.id.toUpperCase() }])).body).toEqual({
      accepted: 0,
      duplicates: 1,
    });
    expect(await storedFor(key.id)).toHaveLength(23);
  });

  it('keys ids per instance: the same id from two organizations’ instances is two events, each organization sees its own', async () => {
    const a = await supportWorld();
    const b = await supportWorld();
    const shared = event();
    expect((await send(a.key.secret, [shared])).body).toEqual({ accepted: 1, duplicates: 0 });
    // Neither refused nor revealed as a duplicate to the other organization, and its own copy is stored.
    expect((await send(b.key.secret, [{ ...shared, action: 'other.org' }])).body).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    expect((await send(b.key.secret, [shared])).body).toEqual({ accepted: 0, duplicates: 1 });
    const seen = async (orgId: string) =>
      (await listAddonEvents({ kind: 'org', orgId }, {}, { page: 1, limit: 50 })).rows;
    expect((await seen(a.org.id)).map((r) => [r.id, r.instanceId, r.action])).toEqual([
      [shared.id, a.key.id, 'snapshot.create'],
    ]);
    expect((await seen(b.org.id)).map((r) => [r.id, r.instanceId, r.action])).toEqual([
      [shared.id, b.key.id, 'other.org'],
    ]);
  });

  it('stores each event once when the same batch is re-sent concurrently (timeouts and retries)', async () => {
    const { key } = await supportWorld();
    const batch = Array.from({ length: 100 }, () => event());
    const results = await Promise.all(Array.from({ length: 6 }, () => send(key.secret, batch)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.reduce((n, r) => n + r.body.accepted, 0)).toBe(100);
    expect(results.reduce((n, r) => n + r.body.duplicates, 0)).toBe(500);
    expect(await storedFor(key.id)).toHaveLength(100);
  });

  it('validates the whole batch first: one bad event → 400 naming its index, nothing stored', async () => {
    const { key } = await supportWorld();
    const good = () => event();
    const cases: [Record<string, unknown>, string][] = [
      [{ occurred_at: 'yesterday' }, 'occurred_at'],
      [{ occurred_at: '2026-03-01T10:00:00' }, 'occurred_at'], // no offset: ambiguous
      [{ id: 'not-a-uuid' }, 'id'],
      [{ id: undefined }, 'id'],
      [{ addon: '' }, 'addon'],
      [{ addon: 'x'.repeat(101) }, 'addon'],
      [{ action: undefined }, 'action'],
      [{ action: 'line\nbreak' }, 'action'],
      [{ actor: 'x'.repeat(201) }, 'actor'],
      [{ details: [1, 2] }, 'details'],
      [{ details: 'text' }, 'details'],
      [{ details: { text: 'nul\u0000byte' } }, 'details'],
      [{ addon: 'bad\u0000' }, 'addon'],
      [{ details: { lone: '\ud800' } }, 'details'],
    ];
    for (const [override, field] of cases) {
      const batch = [good(), good(), good(), event(override), good()];
      const res = await send(key.secret, batch);
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.message, JSON.stringify(override)).toContain(`events.3.${field}`);
    }
    expect(await storedFor(key.id)).toEqual([]);
  });

  it('takes 1 to 500 events and at most 1 MB; a larger request body gets a clear 413', async () => {
    const { key } = await supportWorld();
    const empty = await send(key.secret, []);
    expect(empty.status).toBe(400);
    expect(empty.body.message).toContain('events');
    expect((await api('/addon-audit-events', { method: 'POST', token: key.secret, body: {} })).status).toBe(400);
    expect((await send(key.secret, 'nope')).status).toBe(400);

    const tooMany = await send(
      key.secret,
      Array.from({ length: 501 }, () => event()),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toMatch(/events: .*500/);

    const max = await send(
      key.secret,
      Array.from({ length: 500 }, () => event({ details: undefined })),
    );
    expect(max.body).toEqual({ accepted: 500, duplicates: 0 });

    // 1.5 MB of events: within the 2 MiB request limit, over the 1 MB batch limit.
    const big = Array.from({ length: 3 }, () => event({ details: { blob: 'x'.repeat(500_000) } }));
    const overBatch = await send(key.secret, big);
    expect(overBatch.status).toBe(413);
    expect(overBatch.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(overBatch.body.message).toContain('1 MB');

    // 3 MB: refused by the REST adapter before parsing, as JSON.
    const huge = Array.from({ length: 6 }, () => event({ details: { blob: 'x'.repeat(500_000) } }));
    const overBody = await send(key.secret, huge);
    expect(overBody.status).toBe(413);
    expect(overBody.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(overBody.body.message).toContain('2 MiB');
    // Also when no Content-Length is announced (streamed body).
    const stream = new Blob([JSON.stringify({ events: huge })]).stream();
    const { handleRest } = await import('../../server/api/rest');
    const streamed = await handleRest(
      new Request('http://hub.test/api/v1/addon-audit-events', {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);

    expect(await storedFor(key.id)).toHaveLength(500);
  });

  it('refuses everything but an active instance key', async () => {
    expect(await refusals((token) => send(token, [event()]))).toEqual(EXPECTED_REFUSALS);
  });
});
