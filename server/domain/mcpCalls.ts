/**
 * The record of every /mcp call (proxied, or refused by the Hub) with its instance's daily count: queued, and
 * written in batches (mcp_calls, instance_usage_daily).
 */
import { sql } from 'drizzle-orm';
import { flushLater, oneAtATime } from '../batched';
import { getDb } from '../db/client';
import { logger, runInBackground, wallClock } from '../log';
import { gaugeOf, hubMetrics } from '../metrics';
import type { ResolvedPat } from './pats';
import { mcpOutcomeOf, type McpOutcome } from './usage';

export interface McpCallRecord {
  pat: Pick<ResolvedPat, 'tokenId' | 'userId' | 'orgId' | 'instanceKeyId' | 'mcpUrl'>;
  method: string | null;
  upstreamStatus: number | null;
  /** Default: from the upstream status (usage.ts mcpOutcomeOf); a call without an MCP URL was not forwarded. */
  outcome?: McpOutcome;
}

/** A call waiting for its batch, named as mcp_calls' columns: the batch goes to PostgreSQL as one JSON document. */
interface QueuedMcpCall {
  org_id: string;
  token_id: string;
  instance_key_id: string;
  user_id: string;
  method: string | null;
  upstream_status: number | null;
  outcome: McpOutcome;
  /** When it was recorded, epoch milliseconds (log.ts wallClock: the per-call path does not construct a Date). */
  created_ms: number;
}

/**
 * Proxied calls are recorded in batches, like download counts and poll tallies: each call joins the queue,
 * written every FLUSH_INTERVAL_MS (or at once when a batch is full, and by the shutdown drain,
 * flushBatchedWrites) in one statement with the instances' daily counts. Writing each call as it came cost
 * an idle-ish proxy a transaction per call (~0.35 ms of CPU, more than the rest of the call). What a crash can
 * lose is the last interval's calls; a failed write is logged and its calls are not kept (they would pile up
 * during an outage).
 */
const FLUSH_INTERVAL_MS = 500;
const BATCH_ROWS = 1000;
const calls = ((
  globalThis as {
    __hubMcpCalls?: { queued: QueuedMcpCall[]; timer: NodeJS.Timeout | null; flushing: Promise<void> | undefined };
  }
).__hubMcpCalls ??= { queued: [], timer: null, flushing: undefined });
gaugeOf(
  'hub_batched_write_queue',
  'Entries waiting for a batched write',
  { queue: 'mcp_calls' },
  () => calls.queued.length,
);

/**
 * One batch of calls and the instances' daily counts by outcome (usage.ts), in one statement: the rollup is the
 * rows' count, and a statement is atomic without a transaction around it. The rows arrive as one JSON parameter
 * (no per-value work in the ORM, whatever the batch's size); day rows are written in key order, as the other
 * batched writers do (two processes lock them in the same order). Keys deleted meanwhile (an organization
 * removed) get their mcp_calls rows but no day row: the join skips them, never an error.
 */
function storeMcpCalls(batch: QueuedMcpCall[]) {
  return sql`
    with v as (
      select *, to_timestamp(created_ms / 1000.0) as created_at
        from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as v(org_id uuid, token_id uuid,
          instance_key_id uuid, user_id uuid, method text, upstream_status int, outcome text, created_ms float8)
    ), stored as (
      insert into mcp_calls (org_id, token_id, instance_key_id, user_id, method, upstream_status, outcome, created_at)
      select org_id, token_id, instance_key_id, user_id, method, upstream_status, outcome, created_at from v
    )
    insert into instance_usage_daily (day, instance_key_id, org_id, mcp_ok, mcp_refused_hub, mcp_refused_instance,
      mcp_upstream_error)
    select (v.created_at at time zone 'UTC')::date, k.id, k.org_id,
           count(*) filter (where v.outcome = 'ok'), count(*) filter (where v.outcome = 'refused_hub'),
           count(*) filter (where v.outcome = 'refused_instance'), count(*) filter (where v.outcome = 'upstream_error')
      from v join instance_keys k on k.id = v.instance_key_id
     group by 1, 2, 3
     order by 2, 1
    on conflict (day, instance_key_id) do update set
      mcp_ok = instance_usage_daily.mcp_ok + excluded.mcp_ok,
      mcp_refused_hub = instance_usage_daily.mcp_refused_hub + excluded.mcp_refused_hub,
      mcp_refused_instance = instance_usage_daily.mcp_refused_instance + excluded.mcp_refused_instance,
      mcp_upstream_error = instance_usage_daily.mcp_upstream_error + excluded.mcp_upstream_error`;
}

/** Writes the queued call records now, after a write already under way; resolves when every call so far is stored. */
export const flushMcpCalls = oneAtATime(calls, async () => {
  while (calls.queued.length > 0) {
    const batch = calls.queued.splice(0, BATCH_ROWS);
    try {
      await (await getDb()).execute(storeMcpCalls(batch));
    } catch (err) {
      logger.warn({ err: (err as Error).message, calls: batch.length }, 'could not record MCP calls');
    }
  }
});

/**
 * A client's text as PostgreSQL's text can hold it: without NULs, a lone half of a surrogate pair replaced (U+FFFD).
 * One call's method must not fail the statement that stores its whole batch.
 */
function recordableText(text: string): string {
  return text
    .replace(/\0/g, '')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** Records one proxied (or refused) call for the minter's organization: queued, written with the next batch. */
export function recordMcpCall({ pat, method, upstreamStatus, outcome }: McpCallRecord): void {
  hubMetrics.mcpCall(upstreamStatus);
  calls.queued.push({
    org_id: pat.orgId,
    token_id: pat.tokenId,
    instance_key_id: pat.instanceKeyId,
    user_id: pat.userId,
    method: method === null ? null : recordableText(method.slice(0, 200)),
    upstream_status: upstreamStatus,
    outcome: outcome ?? mcpOutcomeOf(upstreamStatus, pat.mcpUrl !== null),
    created_ms: wallClock(),
  });
  // A full batch goes now (the flush writes whatever has queued by then); otherwise with the next interval.
  if (calls.queued.length === BATCH_ROWS) void runInBackground('mcp_calls', flushMcpCalls);
  else flushLater(calls, FLUSH_INTERVAL_MS, 'mcp_calls', flushMcpCalls);
}
