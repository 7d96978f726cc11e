/**
 * download_count increments, batched: reads add to an in-process tally that is written with one
 * UPDATE every FLUSH_INTERVAL_MS (and by the server entry points on shutdown, flushDownloads).
 * Increments are exact: a failed flush puts its tally back. What a crash (SIGKILL, power loss) can lose
 * is the tally of the last interval at most.
 */
import { sql } from 'drizzle-orm';
import { getDb } from '../../db/client';

const FLUSH_INTERVAL_MS = 500;

const holder = globalThis as { __hubDownloads?: { pending: Map<string, number>; timer: NodeJS.Timeout | null } };
const state = (holder.__hubDownloads ??= { pending: new Map(), timer: null });

export function recordDownload(templateId: string) {
  state.pending.set(templateId, (state.pending.get(templateId) ?? 0) + 1);
  if (!state.timer) {
    state.timer = setTimeout(() => {
      state.timer = null;
      void flushDownloads().catch((err) => console.error('[hub] download counts not written yet:', (err as Error).message));
    }, FLUSH_INTERVAL_MS);
    state.timer.unref();
  }
}

/** Writes the tally now. Resolves when it is stored. */
export async function flushDownloads(): Promise<void> {
  if (state.pending.size === 0) return;
  const batch = state.pending;
  state.pending = new Map();
  const ids = [...batch.keys()];
  const counts = ids.map((id) => batch.get(id)!);
  try {
    const db = await getDb();
    await db.execute(sql`
      update templates t set download_count = t.download_count + v.n
        from (select unnest(${`{${ids.join(',')}}`}::uuid[]) as id, unnest(${`{${counts.join(',')}}`}::int[]) as n) v
       where t.id = v.id`);
  } catch (err) {
    for (const [id, n] of batch) state.pending.set(id, (state.pending.get(id) ?? 0) + n);
    throw err;
  }
}
