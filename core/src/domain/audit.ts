/**
 * The per-request audit of machine tokens, written in batches so that a request never waits for it:
 * records queue in memory and are inserted every FLUSH_MS or when BATCH_SIZE are waiting. close()
 * writes everything still queued (graceful shutdown loses nothing). A failed insert is retried.
 */
import type { Db } from '../db/client';
import { machineTokenAudit } from '../db/schema';
import type { Logger } from '../log';

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

export class AuditWriter {
  private queue: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  record(r: AuditRecord) {
    this.queue.push(r);
    if (this.queue.length > MAX_QUEUED) {
      const dropped = this.queue.splice(0, this.queue.length - MAX_QUEUED);
      this.log.error('audit queue full: records dropped', { dropped: dropped.length });
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
        for (; written < batch.length; written += 1000) await this.db.insert(machineTokenAudit).values(batch.slice(written, written + 1000));
      } catch (err) {
        this.queue.unshift(...batch.slice(written));
        this.log.error('audit write failed; will retry', { error: (err as Error).message, queued: this.queue.length });
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
    if (this.queue.length > 0) this.log.error('audit records lost at shutdown', { lost: this.queue.length });
  }
}
