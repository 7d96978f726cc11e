/** Dashboard views of the support surface (tRPC with a user session/JWT) and the addon event export: roles and tenant isolation. */
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { GET as exportRoute } from '../../app/api/export/addon-events/route';
import { csvCell } from '../../server/api/addonEventsExport';
import { getDb } from '../../server/db/client';
import { auditLog, supportMessages } from '../../server/db/schema';
import { api, createKey, createUser } from '../helpers';
import { supportWorld, trpcAs } from '../support-helpers';

let A: Awaited<ReturnType<typeof supportWorld>> & { key2: Awaited<ReturnType<typeof createKey>> };
let B: Awaited<ReturnType<typeof supportWorld>>;
let staff: Awaited<ReturnType<typeof createUser>>;
let loner: Awaited<ReturnType<typeof createUser>>;
const t: Record<string, { id: string; number: number }> = {};

const openTicket = async (secret: string, subject: string, severity = 'normal') =>
  (
    await api('/support/tickets', {
      method: 'POST',
      token: secret,
      body: { subject, body: `${subject} body`, severity },
    })
  ).body.ticket;

const ev = (addon: string, action: string, occurred_at: string, extra: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  addon,
  action,
  occurred_at,
  ...extra,
});

beforeAll(async () => {
  const a = await supportWorld({ slug: 'tenant-a', keyName: 'a-core-1' });
  A = { ...a, key2: await createKey(a.org.id, 'a-core-2') };
  B = await supportWorld({ slug: 'tenant-b', keyName: 'b-core' });
  staff = await createUser({ role: 'admin', name: 'Sam Staff' });
  loner = await createUser();
  t.a1 = await openTicket(A.key.secret, 'A1 urgent', 'urgent');
  t.a2 = await openTicket(A.key2.secret, 'A2 low', 'low');
  t.b = await openTicket(B.key.secret, 'B normal');

  const send = (secret: string, events: unknown[]) =>
    api('/addon-audit-events', { method: 'POST', token: secret, body: { events } });
  await send(A.key.secret, [
    ev('backup', 'snapshot.create', '2026-01-01T10:00:00Z', {
      actor: '=cmd|calc',
      details: { note: 'a, "quoted"\nline' },
    }),
    ev('backup', 'snapshot.delete', '2026-01-02T10:00:00Z'),
  ]);
  await send(A.key2.secret, [ev('vpn', 'peer.add', '2026-01-03T10:00:00Z', { actor: 'bob' })]);
  await send(B.key.secret, [ev('backup', 'snapshot.create', '2026-01-04T10:00:00Z')]);
});

describe('tickets in the dashboard', () => {
  it('organization members see their organization’s tickets only; platform admins all, with filters', async () => {
    const memberA = await trpcAs(A.member.token);
    const mine = await memberA.support.dashboardListTickets({});
    expect(mine.tickets.map((x) => x.subject)).toEqual(['A2 low', 'A1 urgent']);
    expect(mine.tickets[0]).toMatchObject({
      organization: { id: A.org.id, slug: 'tenant-a' },
      instance: { id: A.key2.id, name: 'a-core-2' },
    });
    // Asking for another organization changes nothing for a member.
    expect((await memberA.support.dashboardListTickets({ org_id: B.org.id })).tickets.map((x) => x.subject)).toEqual([
      'A2 low',
      'A1 urgent',
    ]);
    expect((await memberA.support.dashboardListTickets({ severity: 'urgent' })).tickets.map((x) => x.id)).toEqual([
      t.a1!.id,
    ]);
    expect((await memberA.support.dashboardListTickets({ instance_id: B.key.id })).tickets).toEqual([]);
    expect((await (await trpcAs(B.admin.token)).support.dashboardListTickets({})).tickets.map((x) => x.id)).toEqual([
      t.b!.id,
    ]);

    const admin = await trpcAs(staff.token);
    const all = await admin.support.dashboardListTickets({});
    expect(all.tickets.map((x) => x.id)).toEqual([t.b!.id, t.a2!.id, t.a1!.id]);
    expect(all.pagination.total).toBe(3);
    expect((await admin.support.dashboardListTickets({ org_id: B.org.id })).tickets.map((x) => x.id)).toEqual([
      t.b!.id,
    ]);
    expect((await admin.support.dashboardListTickets({ severity: 'low' })).tickets.map((x) => x.id)).toEqual([
      t.a2!.id,
    ]);
    expect((await admin.support.dashboardListTickets({ status: 'closed' })).tickets).toEqual([]);
    expect((await admin.support.dashboardListTickets({ limit: 1, page: 2 })).tickets.map((x) => x.id)).toEqual([
      t.a2!.id,
    ]);
  });

  it('another organization’s ticket is not found for a member: no read, no reply', async () => {
    const memberA = await trpcAs(A.member.token);
    await expect(memberA.support.dashboardGetTicket({ id: t.b!.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(memberA.support.dashboardReplyTicket({ id: t.b!.id, body: 'hi' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const db = await getDb();
    expect(await db.select().from(supportMessages).where(eq(supportMessages.ticketId, t.b!.id))).toEqual([]);
    const own = await memberA.support.dashboardGetTicket({ id: t.a2!.id });
    expect(own.ticket).toMatchObject({
      subject: 'A2 low',
      body: 'A2 low body',
      organization: { id: A.org.id },
      instance: { name: 'a-core-2' },
    });
    expect((await (await trpcAs(staff.token)).support.dashboardGetTicket({ id: t.b!.id })).ticket.subject).toBe(
      'B normal',
    );
  });

  it('refuses callers without an organization, instance keys and anonymous callers', async () => {
    await expect((await trpcAs(loner.token)).support.dashboardListTickets({})).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect((await trpcAs(A.key.secret)).support.dashboardListTickets({})).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect((await trpcAs(null)).support.dashboardListTickets({})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect((await trpcAs(A.key.secret)).support.listAddonEvents({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect((await trpcAs(loner.token)).support.listInstances({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('replies: a member reopens a closed ticket; staff replies leave the status; only platform admins set the status (audited)', async () => {
    const admin = await trpcAs(staff.token);
    const memberA = await trpcAs(A.member.token);
    await expect(memberA.support.setTicketStatus({ id: t.a1!.id, status: 'closed' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(
      (await trpcAs(A.admin.token)).support.setTicketStatus({ id: t.a1!.id, status: 'closed' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(admin.support.setTicketStatus({ id: randomUUID(), status: 'closed' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    expect((await admin.support.setTicketStatus({ id: t.a1!.id, status: 'closed' })).ticket.status).toBe('closed');
    const staffReply = await admin.support.dashboardReplyTicket({ id: t.a1!.id, body: 'We fixed it.' });
    expect(staffReply).toMatchObject({
      ticket: { status: 'closed' },
      reopened: false,
      message: { author: { type: 'staff', name: 'Sam Staff' } },
    });
    const memberReply = await memberA.support.dashboardReplyTicket({ id: t.a1!.id, body: 'Not fixed for us.' });
    expect(memberReply).toMatchObject({
      ticket: { status: 'open' },
      reopened: true,
      message: { author: { type: 'user', name: 'Org Member' } },
    });

    // The instance follows the conversation.
    const seen = await api(`/support/tickets/${t.a1!.id}`, { token: A.key.secret });
    expect(seen.body.ticket.status).toBe('open');
    expect(seen.body.ticket.messages.map((m: any) => [m.author.type, m.author.name, m.body])).toEqual([
      ['staff', 'Sam Staff', 'We fixed it.'],
      ['user', 'Org Member', 'Not fixed for us.'],
    ]);
    const db = await getDb();
    const audits = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, t.a1!.id), eq(auditLog.action, 'support_ticket.status')));
    expect(audits.map((a) => [a.actorId, a.details])).toEqual([
      [staff.id, { number: t.a1!.number, from: 'open', to: 'closed' }],
      [A.member.id, { number: t.a1!.number, from: 'closed', to: 'open', reason: 'customer reply' }],
    ]);
    for (const body of ['', ' ', 'x'.repeat(20_001)]) {
      await expect(memberA.support.dashboardReplyTicket({ id: t.a1!.id, body })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
    }
  });
});

describe('addon events in the dashboard', () => {
  it('organization admins see their organization’s events only; members none; platform admins all', async () => {
    const adminA = await trpcAs(A.admin.token);
    const listA = await adminA.support.listAddonEvents({});
    expect(listA.events.map((e) => [e.addon, e.action])).toEqual([
      ['vpn', 'peer.add'],
      ['backup', 'snapshot.delete'],
      ['backup', 'snapshot.create'],
    ]);
    expect(listA.events.every((e) => e.organization.id === A.org.id)).toBe(true);
    expect((await adminA.support.listAddonEvents({ org_id: B.org.id })).events).toHaveLength(3);
    expect(
      (await adminA.support.listAddonEvents({ org_id: B.org.id })).events.every((e) => e.organization.id === A.org.id),
    ).toBe(true);
    await expect((await trpcAs(A.member.token)).support.listAddonEvents({})).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(
      (await (await trpcAs(B.admin.token)).support.listAddonEvents({})).events.map((e) => e.instance?.name),
    ).toEqual(['b-core']);

    const admin = await trpcAs(staff.token);
    const all = await admin.support.listAddonEvents({});
    expect(all.events.map((e) => e.occurred_at)).toEqual([
      '2026-01-04T10:00:00.000Z',
      '2026-01-03T10:00:00.000Z',
      '2026-01-02T10:00:00.000Z',
      '2026-01-01T10:00:00.000Z',
    ]);
    expect((await admin.support.listAddonEvents({ org_id: B.org.id })).events).toHaveLength(1);
  });

  it('filters by instance, addon, action and time range, paginated newest first', async () => {
    const admin = await trpcAs(staff.token);
    const q = async (input: Record<string, unknown>) =>
      (await admin.support.listAddonEvents(input)).events.map((e) => e.occurred_at.slice(0, 10));
    expect(await q({ instance_id: A.key.id })).toEqual(['2026-01-02', '2026-01-01']);
    expect(await q({ addon: 'backup' })).toEqual(['2026-01-04', '2026-01-02', '2026-01-01']);
    expect(await q({ addon: 'backup', action: 'snapshot.create' })).toEqual(['2026-01-04', '2026-01-01']);
    expect(await q({ since: '2026-01-02T10:00:00Z', until: '2026-01-04T10:00:00Z' })).toEqual([
      '2026-01-03',
      '2026-01-02',
    ]);
    const page = await admin.support.listAddonEvents({ limit: 3, page: 2 });
    expect(page.events.map((e) => e.occurred_at.slice(0, 10))).toEqual(['2026-01-01']);
    expect(page.pagination).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2 });
    await expect(admin.support.listAddonEvents({ since: 'last week' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('exports the filtered view as CSV or NDJSON with the same scope (session cookie or JWT)', async () => {
    const get = (query: string, headers: Record<string, string> = {}) =>
      exportRoute(new Request(`http://hub.test/api/export/addon-events?${query}`, { headers }));

    const csv = await get('format=csv', { cookie: `authjs.session-token=${A.admin.token}` });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="addon-events-.*\.csv"$/);
    const text = await csv.text();
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,occurred_at,received_at,organization_id,organization_slug,instance_id,instance_name,addon,action,actor,details',
    );
    expect(text).not.toContain('tenant-b');
    expect(text).toContain(`'=cmd|calc`); // formula neutralised
    expect(text).toContain('"{""note"":""a, \\""quoted\\""\\nline""}"');
    expect(text.match(/tenant-a/g)).toHaveLength(3);

    const ndjson = await get(`format=ndjson&addon=backup&org_id=${B.org.id}`, {
      authorization: `Bearer ${A.admin.token}`,
    });
    expect(ndjson.headers.get('content-type')).toContain('application/x-ndjson');
    const rows = (await ndjson.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.organization.slug, r.action])).toEqual([
      ['tenant-a', 'snapshot.delete'],
      ['tenant-a', 'snapshot.create'],
    ]);
    expect(rows[1]).toMatchObject({
      actor: '=cmd|calc',
      details: { note: 'a, "quoted"\nline' },
      instance: { name: 'a-core-1' },
    });

    const everything = await get('format=ndjson', { authorization: `Bearer ${staff.token}` });
    expect((await everything.text()).trim().split('\n')).toHaveLength(4);

    const refusals = [
      [await get('format=csv'), 401],
      [await get('format=csv', { authorization: `Bearer ${A.member.token}` }), 403],
      [await get('format=csv', { authorization: `Bearer ${A.key.secret}` }), 403],
      [await get('format=xml', { authorization: `Bearer ${staff.token}` }), 400],
      [await get('since=yesterday', { authorization: `Bearer ${staff.token}` }), 400],
    ] as const;
    for (const [res, status] of refusals) {
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
  });

  it('exports in batches beyond one page (keyset pagination keeps every row exactly once)', async () => {
    const { key, admin } = await supportWorld({ slug: 'bulk' });
    const same = '2026-02-01T00:00:00Z'; // identical timestamps: the id breaks the tie
    const events = Array.from({ length: 1203 }, (_, i) =>
      ev('bulk', 'tick', i % 2 ? same : `2026-02-01T00:${String(i % 60).padStart(2, '0')}:00Z`),
    );
    for (let i = 0; i < events.length; i += 500) {
      expect(
        (
          await api('/addon-audit-events', {
            method: 'POST',
            token: key.secret,
            body: { events: events.slice(i, i + 500) },
          })
        ).status,
      ).toBe(200);
    }
    const res = await exportRoute(
      new Request('http://hub.test/api/export/addon-events?format=ndjson', {
        headers: { authorization: `Bearer ${admin.token}` },
      }),
    );
    const ids = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toHaveLength(1203);
    expect(new Set(ids).size).toBe(1203);
  });

  it('csv cells are quoted per RFC 4180', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell(' padded')).toBe('" padded"');
    expect(csvCell(null)).toBe('');
  });
});

describe('instances in the dashboard', () => {
  it('members see their organization’s instances; platform admins all', async () => {
    const memberA = await (await trpcAs(A.member.token)).support.listInstances({});
    expect(memberA.instances.map((i) => i.name).sort()).toEqual(['a-core-1', 'a-core-2']);
    expect(
      (await (await trpcAs(A.member.token)).support.listInstances({ org_id: B.org.id })).instances
        .map((i) => i.name)
        .sort(),
    ).toEqual(['a-core-1', 'a-core-2']);
    const admin = await (await trpcAs(staff.token)).support.listInstances({ org_id: B.org.id });
    expect(admin.instances.map((i) => i.name)).toEqual(['b-core']);
    expect(admin.instances[0]).toMatchObject({ organization: { slug: 'tenant-b' }, dns: null, dns_publish: null });
    expect(JSON.stringify(admin)).not.toContain(B.key.secret);
  });
});
