/**
 * The per-request audit of machine tokens, written in batches so that a request never waits for it:
 * records queue in memory and are inserted every FLUSH_MS or when BATCH_SIZE are waiting. close()
 * writes everything still queued (graceful shutdown loses nothing). A failed insert is retried.
 */
import type { Db } from '../db/client';
import { machineTokenAudit } from '../db/schema';
import type { Logger } from '../log';
import { bumpUsage, pruneUsage, statusClass, utcDay } from './usage';

export interface AuditRecord {
  tokenId: string;
  method: string;
  path: string;
  status: number;
  at: Date;
}

const FLUSH_MS = 250;
const BATCH_SIZE = 200;
/** Bound on memory while the database is down; beyond it the oldest records are dropped (and logged). */
const MAX_QUEUED = 100_000;
/** Old rollup days are dropped at most this often (by whichever flush comes first). */
const PRUNE_EVERY_MS = 3_600_000;

export class AuditWriter {
  private queue: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private prunedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  record(r: AuditRecord) {
    this.queue.push(r);
    if (this.queue.length > MAX_QUEUED) {
      const dropped = this.queue.splice(0, this.queue.length - MAX_QUEUED);
      this.log.error({ dropped: dropped.length }, 'audit queue full: records dropped');
    }
    if (this.queue.length >= BATCH_SIZE) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is queued now; resolves when it is stored (or failed and re-queued). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.queue.length);
    this.flushing = (async () => {
      let written = 0;
      try {
        // Each chunk and its daily rollup commit together: the rollup always equals a count over the raw rows.
        for (; written < batch.length; written += 1000) {
          const chunk = batch.slice(written, written + 1000);
          await this.db.transaction(async (tx) => {
            await tx.insert(machineTokenAudit).values(chunk);
            await bumpUsage(
              tx,
              chunk.map((r) => ({
                day: utcDay(r.at),
                kind: 'machine_token',
                key: r.tokenId,
                class: statusClass(r.status),
                count: 1,
              })),
            );
          });
        }
        if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
          this.prunedAt = Date.now();
          await pruneUsage(this.db);
        }
      } catch (err) {
        this.queue.unshift(...batch.slice(written));
        this.log.error({ error: (err as Error).message, queued: this.queue.length }, 'audit write failed; will retry');
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS * 8);
      }
    })();
    await this.flushing;
    this.flushing = undefined;
  }

  /** Flushes until the queue is empty or the attempts run out. */
  async close(attempts = 5): Promise<void> {
    for (let i = 0; i < attempts && this.queue.length > 0; i++) await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length > 0) this.log.error({ lost: this.queue.length }, 'audit records lost at shutdown');
  }
}
