import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { supportMessages, supportTickets } from '../../server/db/schema';
import { api, createKey, createUser } from '../helpers';
import { EXPECTED_REFUSALS, refusals, supportWorld, trpcAs } from '../support-helpers';

const open = (token: string | null, body: unknown) => api('/support/tickets', { method: 'POST', token, body });

async function ticketCount() {
  const db = await getDb();
  return (await db.select({ id: supportTickets.id }).from(supportTickets)).length;
}

describe('POST /support/tickets', () => {
  it('opens a ticket for the key’s instance and organization, severity normal by default', async () => {
    const { org, key } = await supportWorld();
    const diagnostics = { version: '2.4.1', nodes: [{ name: 'n1', ready: true }], logs: 'line\nline' };
    const res = await open(key.secret, {
      subject: '  Backups fail  ',
      body: 'Since Monday every backup fails.\n\nSee diagnostics.',
      diagnostics,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ticket: {
        id: expect.any(String),
        number: expect.any(Number),
        subject: 'Backups fail',
        status: 'open',
        severity: 'normal',
        created_at: expect.any(String),
      },
    });
    const db = await getDb();
    const [row] = await db.select().from(supportTickets).where(eq(supportTickets.id, res.body.ticket.id));
    expect(row).toMatchObject({
      orgId: org.id,
      instanceKeyId: key.id,
      diagnostics,
      body: 'Since Monday every backup fails.\n\nSee diagnostics.',
    });

    const urgent = await open(key.secret, { subject: 'Down', body: 'All down', severity: 'urgent' });
    expect(urgent.body.ticket.severity).toBe('urgent');
    expect(urgent.body.ticket.number).toBeGreaterThan(res.body.ticket.number);
  });

  it('enforces the limits: subject 1–200, body 1–20,000, severity, diagnostics object ≤ 256 KB; nothing stored on a 400', async () => {
    const { key } = await supportWorld();
    const ok = { subject: 's', body: 'b' };
    const before = await ticketCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ subject: '' }, 'subject'],
      [{ subject: '   ' }, 'subject'],
      [{ subject: 'x'.repeat(201) }, 'subject'],
      [{ subject: 'two\nlines' }, 'subject'],
      [{ subject: undefined }, 'subject'],
      [{ body: '' }, 'body'],
      [{ body: ' \n ' }, 'body'],
      [{ body: 'x'.repeat(20_001) }, 'body'],
      [{ body: 'nul \u0000 inside' }, 'body'],
      [{ severity: 'critical' }, 'severity'],
      [{ diagnostics: [1, 2] }, 'diagnostics'],
      [{ diagnostics: 'text' }, 'diagnostics'],
      [{ diagnostics: { blob: 'x'.repeat(256 * 1024) } }, 'diagnostics'],
      [{ diagnostics: { 'k\u0000': 1 } }, 'diagnostics'],
    ];
    for (const [override, field] of cases) {
      const res = await open(key.secret, { ...ok, ...override });
      expect(res.status, JSON.stringify(override).slice(0, 80)).toBe(400);
      expect(res.body.message).toContain(field);
    }
    expect(await ticketCount()).toBe(before);

    // The limits themselves are accepted.
    const blob = 'x'.repeat(256 * 1024 - '{"blob":""}'.length);
    const atLimit = await open(key.secret, {
      subject: 'x'.repeat(200),
      body: 'y'.repeat(20_000),
      diagnostics: { blob },
    });
    expect(atLimit.status).toBe(200);
  });
});

describe('GET /support/tickets, GET /support/tickets/{id}, POST …/messages', () => {
  it('lists only this instance’s tickets, newest first, paginated and filterable by status', async () => {
    const { org, key } = await supportWorld();
    const sibling = await createKey(org.id, 'core-2');
    const other = await supportWorld();
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await open(key.secret, { subject: `mine ${n}`, body: 'b' })).body.ticket.id);
    await open(sibling.secret, { subject: 'sibling', body: 'b' });
    await open(other.key.secret, { subject: 'other org', body: 'b' });

    const page1 = await api('/support/tickets?limit=2', { token: key.secret });
    expect(page1.status).toBe(200);
    expect(page1.body.tickets.map((t: any) => t.subject)).toEqual(['mine 3', 'mine 2']);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    const page2 = await api('/support/tickets?limit=2&page=2', { token: key.secret });
    expect(page2.body.tickets.map((t: any) => t.subject)).toEqual(['mine 1']);
    expect(page2.body.tickets[0]).toMatchObject({ id: ids[0], status: 'open', severity: 'normal', message_count: 0 });

    const admin = await createUser({ role: 'admin' });
    await (await trpcAs(admin.token)).support.setTicketStatus({ id: ids[1]!, status: 'closed' });
    const closed = await api('/support/tickets?status=closed', { token: key.secret });
    expect(closed.body.tickets.map((t: any) => t.id)).toEqual([ids[1]]);
    expect((await api('/support/tickets?status=bogus', { token: key.secret })).status).toBe(400);
    expect((await api('/support/tickets?limit=0', { token: key.secret })).status).toBe(400);
  });

  it('shows a ticket with its messages; another instance’s or organization’s ticket is 404', async () => {
    const { org, key } = await supportWorld({ keyName: 'core-alpha' });
    const sibling = await createKey(org.id, 'core-beta');
    const other = await supportWorld();
    const ticket = (
      await open(key.secret, { subject: 'Help', body: 'Details', severity: 'high', diagnostics: { a: 1 } })
    ).body.ticket;

    const reply = await api(`/support/tickets/${ticket.id}/messages`, {
      method: 'POST',
      token: key.secret,
      body: { body: 'More details' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      message: {
        id: expect.any(String),
        author: { type: 'instance', name: 'core-alpha' },
        body: 'More details',
        created_at: expect.any(String),
      },
      ticket: { id: ticket.id, number: ticket.number, status: 'open' },
    });

    const got = await api(`/support/tickets/${ticket.id}`, { token: key.secret });
    expect(got.status).toBe(200);
    expect(got.body.ticket).toMatchObject({
      id: ticket.id,
      subject: 'Help',
      body: 'Details',
      severity: 'high',
      status: 'open',
      diagnostics: { a: 1 },
      message_count: 1,
    });
    expect(got.body.ticket.messages).toEqual([reply.body.message]);

    for (const token of [sibling.secret, other.key.secret]) {
      const res = await api(`/support/tickets/${ticket.id}`, { token });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      const post = await api(`/support/tickets/${ticket.id}/messages`, {
        method: 'POST',
        token,
        body: { body: 'sneaky' },
      });
      expect(post.status).toBe(404);
    }
    expect((await api(`/support/tickets/${randomUUID()}`, { token: key.secret })).status).toBe(404);
    const notUuid = await api('/support/tickets/123', { token: key.secret });
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.message).toContain('id');
    const db = await getDb();
    expect(
      (await db.select().from(supportMessages).where(eq(supportMessages.ticketId, ticket.id))).map((m) => m.body),
    ).toEqual(['More details']);
  });

  it('reopens a closed (or pending) ticket when the instance replies; validates the message body', async () => {
    const { key } = await supportWorld();
    const admin = await createUser({ role: 'admin' });
    const staff = await trpcAs(admin.token);
    const ticket = (await open(key.secret, { subject: 'Slow', body: 'b' })).body.ticket;
    await staff.support.setTicketStatus({ id: ticket.id, status: 'closed' });
    expect((await api(`/support/tickets/${ticket.id}`, { token: key.secret })).body.ticket.status).toBe('closed');

    const reopened = await api(`/support/tickets/${ticket.id}/messages`, {
      method: 'POST',
      token: key.secret,
      body: { body: 'Still slow' },
    });
    expect(reopened.body.ticket.status).toBe('open');

    await staff.support.setTicketStatus({ id: ticket.id, status: 'pending' });
    const fromPending = await api(`/support/tickets/${ticket.id}/messages`, {
      method: 'POST',
      token: key.secret,
      body: { body: 'Here you go' },
    });
    expect(fromPending.body.ticket.status).toBe('open');

    for (const body of [{ body: '' }, { body: '  ' }, { body: 'x'.repeat(20_001) }, {}]) {
      const res = await api(`/support/tickets/${ticket.id}/messages`, { method: 'POST', token: key.secret, body });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('body');
    }
    expect((await api(`/support/tickets/${ticket.id}`, { token: key.secret })).body.ticket.messages).toHaveLength(2);
  });

  it('refuses everything but an active instance key', async () => {
    const { key } = await supportWorld();
    const ticket = (await open(key.secret, { subject: 's', body: 'b' })).body.ticket;
    expect(await refusals((token) => open(token, { subject: 's', body: 'b' }))).toEqual(EXPECTED_REFUSALS);
    expect(await refusals((token) => api('/support/tickets', { token }))).toEqual(EXPECTED_REFUSALS);
    expect(await refusals((token) => api(`/support/tickets/${ticket.id}`, { token }))).toEqual(EXPECTED_REFUSALS);
    expect(
      await refusals((token) =>
        api(`/support/tickets/${ticket.id}/messages`, { method: 'POST', token, body: { body: 'x' } }),
      ),
    ).toEqual(EXPECTED_REFUSALS);
  });
});
