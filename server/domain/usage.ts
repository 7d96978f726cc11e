/**
 * Daily rollups of what the fleet does (migration 0009), written beside the batched counters, so that no
 * page ever counts the raw rows:
 *   - template_downloads_daily / instance_usage_daily.downloads: keyed template reads with an instance key,
 *     written by the download counter's flush (catalog/downloads.ts) in the same statement as download_count;
 *   - instance_usage_daily polls / not_modified / full_syncs and instance_sync_state: each `updates` call of an
 *     instance key (a 304 counted as not modified; a complete answer, has_more false, marks a successful sync
 *     with its checked_at) and each first page of the template list (what Core reads in a full sync), tallied
 *     in memory and written every FLUSH_INTERVAL_MS (and on shutdown, flushUsage);
 *   - instance_usage_daily mcp_*: each proxied MCP call by outcome, written in the statement that stores its
 *     mcp_calls row, every 500 ms (mcpCalls.ts, flushMcpCalls);
 *   - tickets_daily: tickets opened and closed, in the ticket's own transaction (support/tickets.ts).
 * Days are UTC. Rows older than RETENTION_DAYS are summed into one row per key dated 1970-01-01 ("earlier"),
 * at most once an hour per process (compactRollups).
 */
import { logger, wallClock } from '../log';
import { flushLater, oneAtATime } from '../batched';
import { sql } from 'drizzle-orm';
import { getDb, type Queryable } from '../db/client';
import { ticketsDaily } from '../db/schema';

export type McpOutcome = 'ok' | 'refused_hub' | 'refused_instance' | 'upstream_error';

export const RETENTION_DAYS = 400;
/** The day older rows are summed into. */
export const EARLIER_DAY = '1970-01-01';
const FLUSH_INTERVAL_MS = 1_000;
const COMPACT_EVERY_MS = 3_600_000;

const DAY_MS = 86_400_000;
/** The last day asked for: every poll and download asks, nearly always for today. */
let lastDay = { number: NaN, text: '' };

/** The UTC day of a moment (by default now), as YYYY-MM-DD. */
export function utcDay(at?: Date | number): string {
  const number = Math.floor((at === undefined ? wallClock() : typeof at === 'number' ? at : at.getTime()) / DAY_MS);
  if (number !== lastDay.number) lastDay = { number, text: new Date(number * DAY_MS).toISOString().slice(0, 10) };
  return lastDay.text;
}

/**
 * What a proxied MCP call came to: the instance answered (2xx, or 304/204) → ok; refused it (4xx other
 * than 401) → refused_instance; failed, timed out, could not be reached, redirected, or refused the Hub's
 * assertion (401) → upstream_error. Not forwarded because the instance has no MCP URL, or the token was
 * refused → refused_hub.
 */
export function mcpOutcomeOf(upstreamStatus: number | null, forwarded: boolean): McpOutcome {
  if (!forwarded) return 'refused_hub';
  if (upstreamStatus === null) return 'upstream_error';
  if (upstreamStatus < 300 || upstreamStatus === 304) return 'ok';
  if (upstreamStatus >= 400 && upstreamStatus < 500 && upstreamStatus !== 401) return 'refused_instance';
  return 'upstream_error';
}

/** One ticket opened or closed today, inside the ticket's transaction. */
export async function countTicket(tx: Queryable, orgId: string, what: 'opened' | 'closed'): Promise<void> {
  const column = what === 'opened' ? ticketsDaily.opened : ticketsDaily.closed;
  await tx
    .insert(ticketsDaily)
    .values({ day: utcDay(), orgId, [what]: 1 })
    .onConflictDoUpdate({ target: [ticketsDaily.day, ticketsDaily.orgId], set: { [what]: sql`${column} + 1` } });
}

// ---------------------------------------------------------------- catalog polls (batched)

interface PollTally {
  day: string;
  keyId: string;
  orgId: string;
  polls: number;
  notModified: number;
  fullSyncs: number;
}

/** Times in epoch ms: a poll reads the clock without making a Date (Next.js wraps the global Date). */
interface SyncMark {
  firstPollAt: number | null;
  lastPollAt: number | null;
  lastSyncAt: number | null;
  lastCheckedAt: string | null;
  /** Latest gap of at least a second between two polls within the batch. */
  gapS: number | null;
}

const holder = globalThis as {
  __hubUsage?: {
    tally: Map<string, PollTally>;
    marks: Map<string, SyncMark>;
    timer: NodeJS.Timeout | null;
    compactedAt: number;
    flushing: Promise<void> | undefined;
  };
};
const state = (holder.__hubUsage ??= {
  tally: new Map(),
  marks: new Map(),
  timer: null,
  compactedAt: 0,
  flushing: undefined,
});

export interface InstanceRef {
  keyId: string;
  orgId: string;
}

function tallyOf(instance: InstanceRef, at: number): PollTally {
  const d = utcDay(at);
  const k = `${d} ${instance.keyId}`;
  let t = state.tally.get(k);
  if (!t)
    state.tally.set(
      k,
      (t = { day: d, keyId: instance.keyId, orgId: instance.orgId, polls: 0, notModified: 0, fullSyncs: 0 }),
    );
  return t;
}

function schedule() {
  flushLater(state, FLUSH_INTERVAL_MS, 'usage', flushUsage);
}

/**
 * One `updates` answer to an instance key: `notModified` for a 304; `complete` when has_more was false
 * (the instance's copy is then current up to checkedAt: a successful sync).
 */
export function recordPoll(
  instance: InstanceRef,
  answer: { notModified: boolean; complete: boolean; checkedAt: string },
  at = wallClock(),
) {
  const t = tallyOf(instance, at);
  t.polls++;
  if (answer.notModified) t.notModified++;
  let m = state.marks.get(instance.keyId);
  if (!m)
    state.marks.set(
      instance.keyId,
      (m = { firstPollAt: null, lastPollAt: null, lastSyncAt: null, lastCheckedAt: null, gapS: null }),
    );
  if (m.lastPollAt !== null) {
    const gap = Math.round((at - m.lastPollAt) / 1000);
    if (gap >= 1) m.gapS = gap;
  }
  m.firstPollAt ??= at;
  m.lastPollAt = at;
  if (answer.complete) {
    m.lastSyncAt = at;
    m.lastCheckedAt = answer.checkedAt;
  }
  schedule();
}

/** The first page of the template list read with an instance key: the start of a full sync. */
export function recordFullSync(instance: InstanceRef, at = wallClock()) {
  tallyOf(instance, at).fullSyncs++;
  schedule();
}

const iso = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString());

/** Writes the poll tallies and sync marks now, after a write already under way. A failed write puts them back. */
export const flushUsage = oneAtATime(state, async () => {
  if (state.tally.size === 0 && state.marks.size === 0) return;
  const tally = state.tally;
  const marks = state.marks;
  state.tally = new Map();
  state.marks = new Map();
  try {
    const db = await getDb();
    // In key order: two processes writing the same keys lock their rows in the same order (no deadlock).
    const rows = [...tally.values()].sort((a, b) =>
      a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : a.day < b.day ? -1 : 1,
    );
    const ms = [...marks.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    const tallies = (f: (r: PollTally) => string | number) => `{${rows.map(f).join(',')}}`;
    const syncMarks = (f: (m: SyncMark, keyId: string) => string | number | null) =>
      `{${ms
        .map(([k, m]) => {
          const v = f(m, k);
          return v === null || v === '' ? 'NULL' : `"${v}"`;
        })
        .join(',')}}`;
    // One statement (a fleet's flushes cost one each, not a transaction of three). Keys deleted meanwhile are
    // skipped by the joins. The poll interval the Hub observes: the latest gap of at least a second between
    // two polls (has_more follow-ups come at once), inside this batch or else since the stored last poll.
    await db.execute(sql`
      with tally as (
        insert into instance_usage_daily (day, instance_key_id, org_id, polls, not_modified, full_syncs)
        select v.day, v.key_id, v.org_id, v.polls, v.nm, v.fs
          from (select unnest(${tallies((r) => r.day)}::date[]) as day, unnest(${tallies((r) => r.keyId)}::uuid[]) as key_id,
                       unnest(${tallies((r) => r.orgId)}::uuid[]) as org_id, unnest(${tallies((r) => r.polls)}::int[]) as polls,
                       unnest(${tallies((r) => r.notModified)}::int[]) as nm, unnest(${tallies((r) => r.fullSyncs)}::int[]) as fs) v
          join instance_keys k on k.id = v.key_id
        on conflict (day, instance_key_id) do update set
          polls = instance_usage_daily.polls + excluded.polls,
          not_modified = instance_usage_daily.not_modified + excluded.not_modified,
          full_syncs = instance_usage_daily.full_syncs + excluded.full_syncs)
      insert into instance_sync_state as s (instance_key_id, last_poll_at, last_sync_at, last_checked_at, poll_interval_s)
      select v.key_id, v.last_poll, v.last_sync, v.checked,
             coalesce(v.gap, (select case when round(extract(epoch from v.first_poll - p.last_poll_at)) >= 1
                                          then round(extract(epoch from v.first_poll - p.last_poll_at))::int end
                                from instance_sync_state p where p.instance_key_id = v.key_id))
        from (select unnest(${syncMarks((_m, k) => k)}::uuid[]) as key_id,
                     unnest(${syncMarks((m) => iso(m.firstPollAt))}::timestamptz[]) as first_poll,
                     unnest(${syncMarks((m) => iso(m.lastPollAt))}::timestamptz[]) as last_poll,
                     unnest(${syncMarks((m) => iso(m.lastSyncAt))}::timestamptz[]) as last_sync,
                     unnest(${syncMarks((m) => m.lastCheckedAt)}::text[]) as checked,
                     unnest(${syncMarks((m) => m.gapS)}::int[]) as gap) v
        join instance_keys k on k.id = v.key_id
      on conflict (instance_key_id) do update set
        poll_interval_s = coalesce(excluded.poll_interval_s, s.poll_interval_s),
        last_poll_at = greatest(s.last_poll_at, excluded.last_poll_at),
        last_sync_at = greatest(s.last_sync_at, excluded.last_sync_at),
        last_checked_at = case when excluded.last_sync_at is not null
                                and (s.last_sync_at is null or excluded.last_sync_at >= s.last_sync_at)
                               then excluded.last_checked_at else s.last_checked_at end`);
  } catch (err) {
    for (const [k, t] of tally) {
      const cur = state.tally.get(k);
      if (cur) {
        cur.polls += t.polls;
        cur.notModified += t.notModified;
        cur.fullSyncs += t.fullSyncs;
      } else state.tally.set(k, t);
    }
    for (const [k, m] of marks) if (!state.marks.has(k)) state.marks.set(k, m);
    throw err;
  }
  if (Date.now() - state.compactedAt > COMPACT_EVERY_MS) {
    state.compactedAt = Date.now();
    await compactRollups().catch((err) => logger.error({ err: (err as Error).message }, 'rollup compaction failed'));
  }
});

/** Sums the day rows older than RETENTION_DAYS into one row per key dated EARLIER_DAY. */
export async function compactRollups(now = new Date()): Promise<void> {
  const cutoff = utcDay(new Date(now.getTime() - RETENTION_DAYS * DAY_MS));
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      with old as (delete from template_downloads_daily where day < ${cutoff}::date and day > ${EARLIER_DAY}::date returning *)
      insert into template_downloads_daily (day, template_id, downloads)
      select ${EARLIER_DAY}::date, template_id, sum(downloads)::int from old group by template_id
      on conflict (day, template_id) do update set downloads = template_downloads_daily.downloads + excluded.downloads`);
    await tx.execute(sql`
      with old as (delete from instance_usage_daily where day < ${cutoff}::date and day > ${EARLIER_DAY}::date returning *)
      insert into instance_usage_daily (day, instance_key_id, org_id, downloads, polls, not_modified, full_syncs,
                                        mcp_ok, mcp_refused_hub, mcp_refused_instance, mcp_upstream_error)
      select ${EARLIER_DAY}::date, instance_key_id, min(org_id::text)::uuid, sum(downloads)::int, sum(polls)::int,
             sum(not_modified)::int, sum(full_syncs)::int, sum(mcp_ok)::int, sum(mcp_refused_hub)::int,
             sum(mcp_refused_instance)::int, sum(mcp_upstream_error)::int
        from old group by instance_key_id
      on conflict (day, instance_key_id) do update set
        downloads = instance_usage_daily.downloads + excluded.downloads,
        polls = instance_usage_daily.polls + excluded.polls,
        not_modified = instance_usage_daily.not_modified + excluded.not_modified,
        full_syncs = instance_usage_daily.full_syncs + excluded.full_syncs,
        mcp_ok = instance_usage_daily.mcp_ok + excluded.mcp_ok,
        mcp_refused_hub = instance_usage_daily.mcp_refused_hub + excluded.mcp_refused_hub,
        mcp_refused_instance = instance_usage_daily.mcp_refused_instance + excluded.mcp_refused_instance,
        mcp_upstream_error = instance_usage_daily.mcp_upstream_error + excluded.mcp_upstream_error`);
    await tx.execute(sql`
      with old as (delete from tickets_daily where day < ${cutoff}::date and day > ${EARLIER_DAY}::date returning *)
      insert into tickets_daily (day, org_id, opened, closed)
      select ${EARLIER_DAY}::date, org_id, sum(opened)::int, sum(closed)::int from old group by org_id
      on conflict (day, org_id) do update set opened = tickets_daily.opened + excluded.opened,
                                              closed = tickets_daily.closed + excluded.closed`);
  });
}
