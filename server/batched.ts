import { logger, runInBackground } from './log';

/**
 * The flush of a batched write (download counts, poll tallies, last-used marks, MCP call records, shared rate-limit
 * counts), one at a time: a call made while one is under way starts after it. So whoever awaits a flush — the
 * shutdown drain, a test — knows that every earlier batch is stored, not only the part still pending when it called
 * (a timer's flush may hold the rest). `holder` keeps the flush under way beside the batch's own state (on globalThis: one per process).
 */
export function oneAtATime(
  holder: { flushing: Promise<void> | undefined },
  flush: () => Promise<void>,
): () => Promise<void> {
  return () => {
    const run = (holder.flushing ?? Promise.resolve()).catch(() => {}).then(flush);
    holder.flushing = run;
    return run;
  };
}

/**
 * Schedules `flush` as background work named `job` in `delayMs`, unless a flush is already scheduled: every batched
 * writer's timer (it does not keep the process alive). A failed flush is logged; what it held stays for the next one
 * when the writer puts it back.
 */
export function flushLater(
  holder: { timer: NodeJS.Timeout | null },
  delayMs: number,
  job: string,
  flush: () => Promise<void>,
): void {
  if (holder.timer) return;
  holder.timer = setTimeout(() => {
    holder.timer = null;
    void runInBackground(job, flush).catch((err) =>
      logger.warn({ err: (err as Error).message, job }, 'batched write not stored yet'),
    );
  }, delayMs);
  holder.timer.unref();
}
