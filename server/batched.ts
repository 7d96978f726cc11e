/**
 * The flush of a batched write (download counts, poll tallies, last-used marks, shared rate-limit counts), one at a
 * time: a call made while one is under way starts after it. So whoever awaits a flush — the shutdown drain, a test —
 * knows that every earlier batch is stored, not only the part still pending when it called (a timer's flush may
 * hold the rest). `holder` keeps the flush under way beside the batch's own state (on globalThis: one per process).
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
