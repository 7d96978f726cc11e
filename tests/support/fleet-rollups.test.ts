/**
 * The daily rollups (migration 0009, server/domain/usage.ts) equal a direct count over the raw rows after
 * concurrent traffic through the real REST handler and the real MCP proxy (a real MCP server upstream, a dead
 * one, an instance without an MCP URL, a revoked token), and the fleet overview reads no raw table.
 */
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { execRows, getDb } from '../../server/db/client';
import { observeStatements } from '../../server/db/statements';
import {
  instanceSyncState,
  instanceUsageDaily,
  mcpCalls,
  supportTickets,
  templateDownloadsDaily,
  templates,
  ticketsDaily,
} from '../../server/db/schema';
import { flushDownloads } from '../../server/domain/catalog/downloads';
import { flushMcpCalls } from '../../server/domain/mcpCalls';
import { compactRollups, EARLIER_DAY, flushUsage, recordPoll, utcDay } from '../../server/domain/usage';
import { currentWork, runInBackground } from '../../server/log';
import { api, createCategory, createKey, createOrg, createTemplate, createUser } from '../helpers';
import { mintToken, rawInitialize, registerMcpUrl } from '../mcp-harness';
import { useMcpInstance } from '../fixtures/mcp-instance';
import { trpcAs } from '../support-helpers';

// Organization A (Alice's) with a1, on the live upstream; B (Bob's) with b1, on a dead one; a2 in A, no MCP URL.
const mcp = useMcpInstance({ admin: { name: 'Alice' }, keyName: 'a1-live' });
let { hub, admin: aliceA, org: orgA, key: a1 } = mcp;
let admin: Awaited<ReturnType<typeof createUser>>;
let bobB: Awaited<ReturnType<typeof createUser>>;
let orgB: Awaited<ReturnType<typeof createOrg>>;
let a2: Awaited<ReturnType<typeof createKey>>;
let b1: Awaited<ReturnType<typeof createKey>>;
const tpl: { id: string; slug: string }[] = [];

beforeAll(async () => {
  ({ hub, admin: aliceA, org: orgA, key: a1 } = mcp);
  admin = await createUser({ role: 'admin' });
  bobB = await createUser({ name: 'Bob' });
  orgB = await createOrg({ admin: bobB });
  a2 = await createKey(orgA.id, 'a2-no-mcp');
  b1 = await createKey(orgB.id, 'b1-dead-upstream');
  // A port nothing listens on: the proxy's calls fail upstream.
  await registerMcpUrl(b1, 'http://127.0.0.1:9/mcp');
  const cat = await createCategory();
  for (const slug of ['roll-one', 'roll-two']) {
    const t = await createTemplate({ categoryId: cat.id, slug });
    tpl.push({ id: t.id, slug });
  }
});

async function mcpPost(token: string, method: string) {
  return fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: {} }),
  }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });
}

describe('rollups after concurrent traffic', () => {
  const reads = new Map<string, number>();
  let mcpExpected = 0;

  it('counts every read, poll, MCP call and ticket', async () => {
    const patA1 = await mintToken(aliceA.token, a1.id);
    const patA2 = await mintToken(aliceA.token, a2.id);
    const patB1 = await mintToken(bobB.token, b1.id);
    const revoked = await mintToken(aliceA.token, a1.id, { name: 'to revoke' });
    expect(
      (await api('/account/tokens', { method: 'DELETE', token: aliceA.token, body: { id: revoked.id } })).status,
    ).toBe(200);

    const since = new Date(Date.now() - 3_600_000).toISOString();
    const first = await api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`, { token: a1.secret });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;

    const work: Promise<unknown>[] = [];
    const keys = [a1, a2, b1];
    for (let i = 0; i < 90; i++) {
      const key = keys[i % 3]!;
      const t = tpl[i % 2]!;
      reads.set(key.id, (reads.get(key.id) ?? 0) + 1);
      work.push(api(`/catalog/templates/${t.slug}`, { token: key.secret }).then((r) => expect(r.status).toBe(200)));
    }
    // Polls: a1 conditional (304s), a2 and b1 plain; every key one full-sync first page.
    for (let i = 0; i < 12; i++) {
      work.push(
        api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`, {
          token: a1.secret,
          headers: { 'if-none-match': etag },
        }),
      );
      work.push(
        api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`, { token: keys[1 + (i % 2)]!.secret }),
      );
    }
    for (const key of keys) work.push(api('/catalog/templates?page=1&limit=100', { token: key.secret }));
    // MCP: a1 answered (initialize) and refused by the instance (no session), a2 not registered,
    // b1 unreachable, a revoked token refused by the Hub.
    for (let i = 0; i < 8; i++) work.push(rawInitialize(hub.url, `Bearer ${patA1.token}`));
    for (let i = 0; i < 5; i++)
      work.push(mcpPost(patA1.token, 'tools/list').then((s) => expect(s).toBeGreaterThanOrEqual(400)));
    for (let i = 0; i < 4; i++) work.push(mcpPost(patA2.token, 'tools/list').then((s) => expect(s).toBe(503)));
    for (let i = 0; i < 3; i++) work.push(mcpPost(patB1.token, 'tools/list').then((s) => expect(s).toBe(502)));
    for (let i = 0; i < 2; i++) work.push(mcpPost(revoked.token, 'tools/list').then((s) => expect(s).toBe(401)));
    mcpExpected = 8 + 5 + 4 + 3 + 2;
    // Tickets: 6 opened by a1, 3 by b1.
    const opened: string[] = [];
    for (let i = 0; i < 9; i++) {
      const key = i < 6 ? a1 : b1;
      work.push(
        api('/support/tickets', { method: 'POST', token: key.secret, body: { subject: `t${i}`, body: 'help' } }).then(
          (r) => {
            expect(r.status).toBe(200);
            opened.push(r.body.id ?? r.body.ticket?.id);
          },
        ),
      );
    }
    await Promise.all(work);
    // Close three (one of them twice: a second close is not a second closing).
    const caller = await trpcAs(admin.token);
    await Promise.all(opened.slice(0, 3).map((id) => caller.support.setTicketStatus({ id, status: 'closed' })));
    await caller.support.setTicketStatus({ id: opened[0]!, status: 'closed' });

    const db = await getDb();
    // Call records are batched (pats.ts): a flush writes every call answered so far, without waiting for the timer.
    await flushMcpCalls();
    expect((await db.select({ n: sql<number>`count(*)::int` }).from(mcpCalls))[0]!.n).toBe(mcpExpected);
    await flushDownloads();
    await flushUsage();
  });

  it('template and instance downloads equal download_count and the reads made', async () => {
    const db = await getDb();
    for (const t of tpl) {
      const [row] = await db.select({ n: templates.downloadCount }).from(templates).where(eq(templates.id, t.id));
      const [sum] = await db
        .select({ n: sql<number>`coalesce(sum(${templateDownloadsDaily.downloads}), 0)::int` })
        .from(templateDownloadsDaily)
        .where(eq(templateDownloadsDaily.templateId, t.id));
      expect(sum!.n).toBe(Number(row!.n));
      expect(sum!.n).toBe(45);
    }
    for (const [keyId, n] of reads) {
      const [sum] = await db
        .select({ n: sql<number>`sum(${instanceUsageDaily.downloads})::int` })
        .from(instanceUsageDaily)
        .where(eq(instanceUsageDaily.instanceKeyId, keyId));
      expect(sum!.n).toBe(n);
    }
  });

  it('polls, 304s, full syncs and the last successful sync', async () => {
    const db = await getDb();
    const rows = await db.select().from(instanceUsageDaily).where(eq(instanceUsageDaily.day, utcDay()));
    const of = (id: string) => rows.find((r) => r.instanceKeyId === id)!;
    expect(of(a1.id)).toMatchObject({ polls: 13, notModified: 12, fullSyncs: 1 });
    expect(of(a2.id)).toMatchObject({ polls: 6, notModified: 0, fullSyncs: 1 });
    expect(of(b1.id)).toMatchObject({ polls: 6, notModified: 0, fullSyncs: 1 });
    const marks = await db.select().from(instanceSyncState);
    expect(marks.map((m) => m.instanceKeyId).sort()).toEqual([a1.id, a2.id, b1.id].sort());
    for (const m of marks) {
      expect(m.lastSyncAt).toBeInstanceOf(Date);
      expect(m.lastCheckedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
  });

  it('MCP calls by instance and outcome equal the mcp_calls rows', async () => {
    const db = await getDb();
    const raw = await db
      .select({ key: mcpCalls.instanceKeyId, outcome: mcpCalls.outcome, n: sql<number>`count(*)::int` })
      .from(mcpCalls)
      .groupBy(mcpCalls.instanceKeyId, mcpCalls.outcome);
    const rolled = await db.select().from(instanceUsageDaily);
    const col = {
      ok: 'mcpOk',
      refused_hub: 'mcpRefusedHub',
      refused_instance: 'mcpRefusedInstance',
      upstream_error: 'mcpUpstreamError',
    } as const;
    let total = 0;
    for (const r of raw) {
      const sum = rolled.filter((x) => x.instanceKeyId === r.key).reduce((s, x) => s + x[col[r.outcome!]], 0);
      expect({ key: r.key, outcome: r.outcome, n: sum }).toEqual({ key: r.key, outcome: r.outcome, n: r.n });
      total += r.n;
    }
    expect(total).toBe(mcpExpected);
    const outcome = (key: string, o: string) => raw.find((r) => r.key === key && r.outcome === o)?.n ?? 0;
    expect(outcome(a1.id, 'ok')).toBe(8);
    expect(outcome(a1.id, 'refused_instance')).toBe(5);
    expect(outcome(a1.id, 'refused_hub')).toBe(2);
    expect(outcome(a2.id, 'refused_hub')).toBe(4);
    expect(outcome(b1.id, 'upstream_error')).toBe(3);
  });

  it('tickets opened and closed equal the ticket rows', async () => {
    const db = await getDb();
    for (const org of [orgA, orgB]) {
      const [t] = await db
        .select({
          opened: sql<number>`count(*)::int`,
          closed: sql<number>`(count(*) filter (where ${supportTickets.status} = 'closed'))::int`,
        })
        .from(supportTickets)
        .where(eq(supportTickets.orgId, org.id));
      const [r] = await db
        .select({
          opened: sql<number>`sum(${ticketsDaily.opened})::int`,
          closed: sql<number>`sum(${ticketsDaily.closed})::int`,
        })
        .from(ticketsDaily)
        .where(eq(ticketsDaily.orgId, org.id));
      expect(r).toEqual(t);
    }
  });

  it('renders the overview from the rollups only: no statement reads a raw table', async () => {
    const statements: string[] = [];
    const stop = observeStatements((s) => statements.push(s));
    let adminView, orgView;
    try {
      adminView = await (await trpcAs(admin.token)).admin.fleet({});
      await (await trpcAs(admin.token)).admin.stats({});
      await (await trpcAs(admin.token)).admin.fleet({ freshness: 'stale', search: 'a1', version: 'unknown' });
      orgView = await (await trpcAs(aliceA.token)).account.fleet({});
    } finally {
      stop();
    }
    expect(statements.length).toBeGreaterThan(5);
    for (const s of statements) {
      for (const raw of [
        'mcp_calls',
        'support_tickets',
        'support_messages',
        'addon_audit_events',
        'audit_log',
        'catalog_entries',
      ]) {
        expect(s, s).not.toContain(`"${raw}"`);
      }
      // The template table only for the names of the top templates, joined by id to the rollup.
      if (s.includes('"templates"')) expect(s).toContain('template_downloads_daily');
    }
    const today = adminView!.series.at(-1)!;
    expect(adminView!.series).toHaveLength(30);
    expect(today).toMatchObject({
      downloads: 90,
      active_instances: 3,
      tickets_opened: 9,
      tickets_closed: 3,
      mcp_ok: 8,
      mcp_refused_instance: 5,
      mcp_refused_hub: 6,
      mcp_upstream_error: 3,
    });
    expect(adminView!.top_templates_7d.map((t) => t.downloads)).toEqual([45, 45]);
    expect(adminView!.instances.map((i) => i.name).sort()).toEqual(['a1-live', 'a2-no-mcp', 'b1-dead-upstream']);

    // Tenant isolation: organization A's admin sees A's instances and counts, nothing of B.
    expect(orgView!.instances.map((i) => i.name).sort()).toEqual(['a1-live', 'a2-no-mcp']);
    expect(orgView!.series.at(-1)).toMatchObject({
      downloads: 60,
      active_instances: 2,
      tickets_opened: 6,
      mcp_upstream_error: 0,
    });
    expect(orgView!.top_templates_30d).toEqual([]);
    const a1Row = orgView!.instances.find((i) => i.id === a1.id)!;
    expect(a1Row.mcp_30d).toEqual({ ok: 8, refused_hub: 2, refused_instance: 5, upstream_error: 0 });
    // Synced, so not 'never'; fresh or stale depends on the interval the Hub observed between the test's polls,
    // which is wall time (a second or more on a loaded machine: stale 3 s later) — the next describe pins that down.
    expect(['fresh', 'stale']).toContain(a1Row.freshness);
    expect(orgView!.instances.find((i) => i.name === 'a2-no-mcp')!.freshness).not.toBe('never');
  });

  it('a member who is not an organization admin is refused; other organizations are not reachable', async () => {
    const member = await createUser();
    await createOrg({ members: [member] });
    await expect((await trpcAs(member.token)).account.fleet({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const res = await api('/account/fleet', { token: bobB.token });
    expect(res.status).toBe(200);
    expect(res.body.instances.map((i: { name: string }) => i.name)).toEqual(['b1-dead-upstream']);
    expect((await api('/admin/fleet', { token: bobB.token })).status).toBe(403);
  });
});

describe('freshness and retention', () => {
  it('observes the poll interval within a batch and across batches, in one statement per flush', async () => {
    const org = await createOrg();
    const across = await createKey(org.id, 'across-batches');
    const within = await createKey(org.id, 'within-batch');
    const t0 = Date.UTC(2026, 10, 20, 12, 0, 0);
    const poll = (key: { id: string }, at: number, complete = true) =>
      recordPoll(
        { keyId: key.id, orgId: org.id },
        { notModified: false, complete, checkedAt: new Date(at).toISOString() },
        at,
      );
    poll(across, t0);
    poll(within, t0);
    poll(within, t0 + 45_000);
    // A has_more follow-up right after: not an interval.
    poll(within, t0 + 45_200, false);
    await flushUsage();
    // The next batch: the gap to the stored last poll (a minute and a half).
    poll(across, t0 + 90_000);
    // Only this flush's statements: another writer's timer (an earlier test's traffic) may fire meanwhile.
    const statements: string[] = [];
    const stop = observeStatements((q) => void (currentWork() === 'observed flush' && statements.push(q)));
    try {
      await runInBackground('observed flush', flushUsage);
    } finally {
      stop();
    }
    expect(statements.filter((q) => !/^(begin|commit)/i.test(q.trim()))).toHaveLength(1);
    const db = await getDb();
    const rows = await db
      .select()
      .from(instanceSyncState)
      .where(sql`${instanceSyncState.instanceKeyId} in (${across.id}, ${within.id})`);
    const by = Object.fromEntries(rows.map((r) => [r.instanceKeyId, r]));
    expect(by[across.id]).toMatchObject({ pollIntervalS: 90, lastPollAt: new Date(t0 + 90_000) });
    expect(by[within.id]).toMatchObject({
      pollIntervalS: 45,
      lastPollAt: new Date(t0 + 45_200),
      lastSyncAt: new Date(t0 + 45_000),
      lastCheckedAt: new Date(t0 + 45_000).toISOString(),
    });
    const [tally] = await execRows(
      db,
      sql`select sum(polls)::int as polls from instance_usage_daily where instance_key_id in (${across.id}, ${within.id})`,
    );
    expect(tally).toMatchObject({ polls: 5 });
  });

  it('marks an instance stale after 3 × its poll interval, and never-synced ones as never', async () => {
    const org = await createOrg();
    const live = await createKey(org.id, 'fresh-one');
    const stale = await createKey(org.id, 'stale-one');
    await createKey(org.id, 'never-one');
    const db = await getDb();
    const now = Date.now();
    await db.insert(instanceSyncState).values([
      {
        instanceKeyId: live.id,
        lastPollAt: new Date(now - 30_000),
        lastSyncAt: new Date(now - 30_000),
        pollIntervalS: 60,
      },
      // Polls every minute, last successful sync 4 minutes ago: stale although far below 24 h.
      {
        instanceKeyId: stale.id,
        lastPollAt: new Date(now - 240_000),
        lastSyncAt: new Date(now - 240_000),
        pollIntervalS: 60,
      },
    ]);
    const user = await createUser();
    await db.execute(
      sql`update users set org_id = ${org.id}, org_role = 'admin', org_joined_at = now() where id = ${user.id}`,
    );
    const view = await (await trpcAs(user.token)).account.fleet({});
    const by = Object.fromEntries(view.instances.map((i) => [i.name, i.freshness]));
    expect(by).toEqual({ 'fresh-one': 'fresh', 'stale-one': 'stale', 'never-one': 'never' });
    // Stale first; the filter is in the input (the URL).
    expect(view.instances[0]!.name).toBe('stale-one');
    const onlyStale = await (await trpcAs(user.token)).account.fleet({ freshness: 'stale' });
    expect(onlyStale.instances.map((i) => i.name)).toEqual(['stale-one']);
  });

  it('sums days older than 400 days into one earlier row, keeping the totals', async () => {
    const org = await createOrg();
    const key = await createKey(org.id, 'old-timer');
    const db = await getDb();
    const day = (ago: number) => utcDay(new Date(Date.now() - ago * 86_400_000));
    await db.insert(instanceUsageDaily).values([
      { day: day(401), instanceKeyId: key.id, orgId: org.id, polls: 5, mcpOk: 1 },
      { day: day(500), instanceKeyId: key.id, orgId: org.id, polls: 7, mcpOk: 2 },
      { day: day(10), instanceKeyId: key.id, orgId: org.id, polls: 3 },
    ]);
    await db.insert(ticketsDaily).values([{ day: day(450), orgId: org.id, opened: 4, closed: 1 }]);
    await compactRollups();
    await compactRollups(); // idempotent
    const rows = await db.select().from(instanceUsageDaily).where(eq(instanceUsageDaily.instanceKeyId, key.id));
    expect(rows.map((r) => [r.day, r.polls, r.mcpOk]).sort()).toEqual(
      [
        [EARLIER_DAY, 12, 3],
        [day(10), 3, 0],
      ].sort(),
    );
    const t = await db
      .select()
      .from(ticketsDaily)
      .where(and(eq(ticketsDaily.orgId, org.id)));
    expect(t.map((r) => [r.day, r.opened, r.closed])).toEqual([[EARLIER_DAY, 4, 1]]);
  });
});
