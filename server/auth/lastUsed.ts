/** The one last-used writer: last_used_at of instance keys, personal access tokens and script tokens, batched. */
import { and, isNull, lt, or, sql } from 'drizzle-orm';
import { flushLater, oneAtATime } from '../batched';
import { databaseIsOpen, getDb } from '../db/client';
import { instanceKeys, personalAccessTokens, scriptTokens } from '../db/schema';
import { logger, wallClock } from '../log';
import { gaugeOf } from '../metrics';

// At most one mark per credential per minute from this process; the WHERE clause keeps several
// processes from writing more often than that together. Marks are batched: one UPDATE per kind every
// LAST_USED_FLUSH_MS for every credential used meanwhile (a fleet of 100,000 keys polling each minute costs
// a statement every few seconds, not one per poll). A failed write is dropped: the next use marks again.
const LAST_USED_INTERVAL_MS = 60_000;
const LAST_USED_FLUSH_MS = 1_000;
const LAST_USED_TABLES = { svh_: instanceKeys, svp_: personalAccessTokens, script: scriptTokens };
type LastUsedKind = keyof typeof LAST_USED_TABLES;
const lastUsed = ((
  globalThis as {
    __hubLastUsed?: {
      touched: Map<string, number>;
      pending: Map<LastUsedKind, Set<string>>;
      timer: NodeJS.Timeout | null;
      flushing: Promise<void> | undefined;
    };
  }
).__hubLastUsed ??= { touched: new Map(), pending: new Map(), timer: null, flushing: undefined });
gaugeOf('hub_batched_write_queue', 'Entries waiting for a batched write', { queue: 'last_used' }, () => {
  let n = 0;
  for (const ids of lastUsed.pending.values()) n += ids.size;
  return n;
});

export function touchLastUsed(kind: LastUsedKind, id: string): void {
  const now = wallClock();
  if (now - (lastUsed.touched.get(id) ?? 0) < LAST_USED_INTERVAL_MS) return;
  if (lastUsed.touched.size > 200_000) lastUsed.touched.clear();
  lastUsed.touched.set(id, now);
  let ids = lastUsed.pending.get(kind);
  if (!ids) lastUsed.pending.set(kind, (ids = new Set<string>()));
  ids.add(id);
  flushLater(lastUsed, LAST_USED_FLUSH_MS, 'last_used', flushLastUsed);
}

/** Writes the pending last-used marks now, after a write already under way (also on shutdown). */
export const flushLastUsed = oneAtATime(lastUsed, async () => {
  if (lastUsed.timer) clearTimeout(lastUsed.timer);
  lastUsed.timer = null;
  const batches: [LastUsedKind, Set<string>][] = [...lastUsed.pending];
  lastUsed.pending.clear();
  if (batches.length === 0 || !databaseIsOpen()) return;
  try {
    const db = await getDb();
    for (const [kind, ids] of batches) {
      const table = LAST_USED_TABLES[kind];
      await db
        .update(table)
        .set({ lastUsedAt: sql`now()` })
        .where(
          and(
            sql`${table.id} = any(${`{${[...ids].sort().join(',')}}`}::uuid[])`,
            or(isNull(table.lastUsedAt), lt(table.lastUsedAt, sql`now() - interval '1 minute'`)),
          ),
        );
    }
  } catch (err) {
    // The driver's own message (the query error would repeat every id of the batch).
    logger.warn(
      { err: ((err as { cause?: Error }).cause ?? (err as Error)).message },
      'could not record credential use',
    );
  }
});
