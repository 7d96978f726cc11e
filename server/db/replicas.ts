/**
 * Read replicas (DATABASE_READ_URL): the catalog reads of anonymous and instance-key callers run on a
 * streaming replica that has replayed every catalog change this process knows of; otherwise on the primary.
 *
 *  - The catalog fence: the primary's WAL insert position, read when a catalog change is announced to this
 *    process (its notification arrives after the commit), at start, and when LISTEN reconnects. The change's
 *    commit record lies before it. A replica serves catalog reads only once it has replayed up to the fence,
 *    so what it answers is never older than what the primary would answer at the time this process last
 *    learned of a change (the same promise the in-process caches make). The generation of the caches moves
 *    only after the fence did (client.ts), so an answer read on a replica before the fence moved is dropped.
 *  - `updates` asks more: its watermark is taken on the primary with the WAL position at that moment, and its
 *    changes are read on a replica only if that replica has replayed that position (else on the primary).
 *  - The monitor samples the primary's position and each replica's replay position every MONITOR_MS. A
 *    replica's lag is how long ago the primary was at a position the replica has not replayed yet. A replica
 *    that fails (down, not a standby of ours) or lags past DATABASE_READ_MAX_LAG_MS is skipped; /readyz lists them.
 *  - A read that fails on a replica (it went down, a query cancelled by a conflict with recovery) runs again on
 *    the primary, and the replica is skipped until the monitor sees it answer again.
 */
import type { Sql } from 'postgres';
import type { Db } from './types';
import { currentWork, runInBackground } from '../log';
import { gaugeOf, hubMetrics } from '../metrics';

const monitorStatements = hubMetrics.statementCounter('replica_monitor');

// Lag is judged against DATABASE_READ_MAX_LAG_MS (seconds), so a sample a second is enough; a read that needs a
// position the replicas were last seen short of asks the freshest one itself (choose). Two statements a second
// per process (one on the primary, one per replica), whatever the traffic.
const MONITOR_MS = 1_000;

export type ReplicaState = 'ok' | 'lagging' | 'down';

export interface ReplicaStatus {
  /** The URL without its password. */
  url: string;
  state: ReplicaState;
  lagMs: number | null;
  error?: string;
}

interface Replica {
  url: string;
  client: Sql;
  db: Db;
  /** Replayed WAL position as last seen (monotonic on one standby); -1 unknown. */
  replayed: bigint;
  lagMs: number | null;
  error: string | null;
  /** The replay position being read: the monitor and the reads that wait for a position share one statement. */
  refreshing: Promise<void> | null;
}

/** A WAL position (pg_lsn) as a number: bytes since 0/0. */
export const LSN_SQL = `(pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text`;

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export class ReadReplicas {
  private readonly replicas: Replica[];
  private fence = -1n;
  private fenceKnown = false;
  /** The primary's insert position over the last lag window: { at (ms), lsn }, oldest first. */
  private samples: { at: number; lsn: bigint }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private next = 0;
  private monitoring: Promise<void> | null = null;

  constructor(
    private readonly primary: Sql,
    replicas: { url: string; client: Sql; db: Db }[],
    private readonly maxLagMs: number,
  ) {
    this.replicas = replicas.map((r) => ({
      ...r,
      replayed: -1n,
      lagMs: null,
      error: 'not checked yet',
      refreshing: null,
    }));
    for (const r of this.replicas) {
      const labels = { replica: redactUrl(r.url) };
      gaugeOf('hub_replica_up', 'Whether the replica answers (1) or is skipped as down (0)', labels, () =>
        r.error === null ? 1 : 0,
      );
      gaugeOf('hub_replica_lag_seconds', 'How far the replica is behind the primary (-1 unknown)', labels, () =>
        r.lagMs === null ? -1 : r.lagMs / 1000,
      );
    }
  }

  private async primaryPosition(): Promise<bigint> {
    monitorStatements.inc(currentWork());
    const [row] = await this.primary.unsafe(`select ${LSN_SQL} as lsn`);
    return BigInt(row!.lsn as string);
  }

  /** A catalog change committed (its notification arrived): replicas must replay up to here before serving. */
  async advanceFence(): Promise<void> {
    try {
      const lsn = await this.primaryPosition();
      if (lsn > this.fence) this.fence = lsn;
      this.fenceKnown = true;
    } catch {
      // The primary is unreachable: no replica read until a position is known again (the monitor's next sample).
      this.fenceKnown = false;
    }
  }

  /** Starts the monitor; resolves after the first round (so the first reads already know the replicas). */
  async start(): Promise<void> {
    await this.advanceFence();
    await this.monitor();
    this.timer = setInterval(() => void runInBackground('replica_monitor', () => this.monitor()), MONITOR_MS);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private monitor(): Promise<void> {
    return (this.monitoring ??= this.monitorRound().finally(() => (this.monitoring = null)));
  }

  private async monitorRound(): Promise<void> {
    const now = Date.now();
    try {
      const lsn = await this.primaryPosition();
      this.samples.push({ at: now, lsn });
      if (!this.fenceKnown) {
        // Taken after any change whose fence read failed: a valid fence for it.
        this.fence = lsn > this.fence ? lsn : this.fence;
        this.fenceKnown = true;
      }
    } catch {
      /* the primary's own outage is /readyz's database check */
    }
    // Keep one sample older than the window, so a lag past the window still shows as past it.
    const keepAfter = now - this.maxLagMs - 2 * MONITOR_MS;
    while (this.samples.length > 2 && this.samples[1]!.at < keepAfter) this.samples.shift();
    await Promise.all(this.replicas.map((r) => this.check(r)));
  }

  private async check(r: Replica): Promise<void> {
    try {
      await this.refresh(r);
      // The oldest sample the replica has not replayed: the primary was there at least that long ago.
      const behind = this.samples.find((s) => s.lsn > r.replayed);
      r.lagMs = behind ? Date.now() - behind.at : 0;
      r.error = null;
    } catch (err) {
      r.error = (err as Error).message;
      r.lagMs = null;
    }
  }

  private refresh(r: Replica): Promise<void> {
    return (r.refreshing ??= this.readReplayed(r).finally(() => (r.refreshing = null)));
  }

  private async readReplayed(r: Replica): Promise<void> {
    monitorStatements.inc(currentWork());
    const [row] = await r.client.unsafe(
      `select pg_is_in_recovery() as standby,
              case when pg_is_in_recovery() then (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text else ${LSN_SQL} end as lsn`,
    );
    const lsn = row?.lsn == null ? -1n : BigInt(row.lsn as string);
    if (lsn > r.replayed) r.replayed = lsn;
  }

  private usable(r: Replica): boolean {
    return r.error === null && r.lagMs !== null && r.lagMs <= this.maxLagMs;
  }

  /**
   * A replica that has replayed up to the fence and `need` (a position the caller needs), or null for the
   * primary. When every usable replica is short of it by what it last reported, the freshest is asked again once.
   */
  async choose(need: bigint = -1n): Promise<{ db: Db; fail(err: unknown): void } | null> {
    if (!this.fenceKnown || this.replicas.length === 0) return null;
    const required = need > this.fence ? need : this.fence;
    const usable = this.replicas.filter((r) => this.usable(r));
    if (usable.length === 0) return null;
    const start = this.next++ % usable.length;
    const ordered = [...usable.slice(start), ...usable.slice(0, start)];
    let chosen = ordered.find((r) => r.replayed >= required);
    if (!chosen) {
      const freshest = ordered.reduce((a, b) => (b.replayed > a.replayed ? b : a));
      try {
        await this.refresh(freshest);
      } catch (err) {
        freshest.error = (err as Error).message;
        return null;
      }
      if (freshest.replayed >= required) chosen = freshest;
    }
    if (!chosen) return null;
    const replica = chosen;
    return {
      db: replica.db,
      fail: (err) => {
        replica.error = (err as Error)?.message ?? String(err);
      },
    };
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => {
      const state: ReplicaState =
        r.error !== null ? 'down' : r.lagMs !== null && r.lagMs > this.maxLagMs ? 'lagging' : 'ok';
      return { url: redactUrl(r.url), state, lagMs: r.lagMs, ...(r.error !== null && { error: r.error }) };
    });
  }

  async close(): Promise<void> {
    this.stop();
    await Promise.all(this.replicas.map((r) => r.client.end({ timeout: 5 })));
  }
}
