/**
 * Per-organization quotas on stored support data: tickets, customer ticket messages and addon audit
 * events. Over the quota → 403 {code, message} naming it, nothing stored; another organization is not
 * affected; staff replies are not counted.
 */
import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { afterEach, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { addonAuditEvents, supportTickets, supportUsage } from '../../server/db/schema';
import { api, createUser } from '../helpers';
import { supportWorld, trpcAs } from '../support-helpers';
import { reloadConfig } from '../../server/config';

afterEach(() => {
  delete process.env.HUB_QUOTA_TICKETS;
  delete process.env.HUB_QUOTA_TICKET_MESSAGES;
  delete process.env.HUB_QUOTA_ADDON_EVENTS;
});

const open = (token: string) =>
  api('/support/tickets', { method: 'POST', token, body: { subject: 'Help', body: 'Please' } });

function expectQuota(res: { status: number; body: any }, env: string) {
  expect(res.status).toBe(403);
  expect(res.body.code).toBe('FORBIDDEN');
  expect(res.body.message).toContain('quota');
  expect(res.body.message).toContain(env);
}

it('tickets: the quota holds per organization', async () => {
  process.env.HUB_QUOTA_TICKETS = '3';
  reloadConfig();
  const a = await supportWorld();
  const b = await supportWorld();
  for (let i = 0; i < 3; i++) expect((await open(a.key.secret)).status).toBe(200);
  expectQuota(await open(a.key.secret), 'HUB_QUOTA_TICKETS');
  const db = await getDb();
  const [row] = await db.select({ n: count() }).from(supportTickets).where(eq(supportTickets.orgId, a.org.id));
  expect(row!.n).toBe(3);
  expect((await open(b.key.secret)).status).toBe(200);
});

it('ticket messages: customers are bounded, staff replies are not counted', async () => {
  process.env.HUB_QUOTA_TICKET_MESSAGES = '2';
  reloadConfig();
  const a = await supportWorld();
  const ticket = (await open(a.key.secret)).body.ticket;
  const reply = (token: string) =>
    api(`/support/tickets/${ticket.id}/messages`, { method: 'POST', token, body: { body: 'more' } });
  expect((await reply(a.key.secret)).status).toBe(200);
  expect((await reply(a.key.secret)).status).toBe(200);
  expectQuota(await reply(a.key.secret), 'HUB_QUOTA_TICKET_MESSAGES');
  const staff = await trpcAs((await createUser({ role: 'admin' })).token);
  await expect(staff.support.dashboardReplyTicket({ id: ticket.id, body: 'staff answer' })).resolves.toBeTruthy();
  // An organization member is a customer too.
  const member = await trpcAs(a.member.token);
  await expect(member.support.dashboardReplyTicket({ id: ticket.id, body: 'me too' })).rejects.toMatchObject({
    code: 'FORBIDDEN',
  });
});

it('addon events: a batch that would go over is refused whole', async () => {
  process.env.HUB_QUOTA_ADDON_EVENTS = '5';
  reloadConfig();
  const a = await supportWorld();
  const events = (n: number) =>
    Array.from({ length: n }, () => ({
      id: randomUUID(),
      addon: 'backup',
      action: 'run',
      occurred_at: '2026-03-01T10:00:00Z',
    }));
  const send = (n: number) =>
    api('/addon-audit-events', { method: 'POST', token: a.key.secret, body: { events: events(n) } });
  expect((await send(4)).status).toBe(200);
  expectQuota(await send(2), 'HUB_QUOTA_ADDON_EVENTS');
  const db = await getDb();
  const [row] = await db.select({ n: count() }).from(addonAuditEvents).where(eq(addonAuditEvents.orgId, a.org.id));
  expect(row!.n).toBe(4);
  expect((await send(1)).status).toBe(200);
});

it('the stored usage stays equal to the rows: duplicates count nothing, refused and concurrent batches count only what was stored', async () => {
  process.env.HUB_QUOTA_ADDON_EVENTS = '20';
  reloadConfig();
  const a = await supportWorld();
  const batch = () =>
    Array.from({ length: 3 }, () => ({
      id: randomUUID(),
      addon: 'backup',
      action: 'run',
      occurred_at: '2026-03-01T10:00:00Z',
    }));
  const send = (events: ReturnType<typeof batch>) =>
    api('/addon-audit-events', { method: 'POST', token: a.key.secret, body: { events } });
  const first = batch();
  expect((await send(first)).body).toEqual({ accepted: 3, duplicates: 0 });
  expect((await send(first)).body).toEqual({ accepted: 0, duplicates: 3 });
  // 10 batches of 3 at once into the 17 left: 5 fit whole, the others are refused whole.
  const results = await Promise.all(Array.from({ length: 10 }, () => send(batch())));
  expect(results.filter((r) => r.status === 200)).toHaveLength(5);
  for (const r of results.filter((r) => r.status !== 200)) expectQuota(r, 'HUB_QUOTA_ADDON_EVENTS');
  const db = await getDb();
  const [rows] = await db.select({ n: count() }).from(addonAuditEvents).where(eq(addonAuditEvents.orgId, a.org.id));
  const [usage] = await db.select().from(supportUsage).where(eq(supportUsage.orgId, a.org.id));
  expect(rows!.n).toBe(18);
  expect(usage!.addonEvents).toBe(18);
});
