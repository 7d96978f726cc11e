/**
 * download_count increments, batched: reads add to an in-process tally that is written with one
 * UPDATE every FLUSH_INTERVAL_MS (and by the server entry points on shutdown, flushDownloads).
 * Increments are exact: a failed flush puts its tally back. What a crash (SIGKILL, power loss) can lose
 * is the tally of the last interval at most.
 * The same statement adds the reads to the daily rollups (usage.ts): per template and UTC day, and per
 * instance key and day.
 */
import { sql } from 'drizzle-orm';
import { getDb } from '../../db/client';
import { utcDay, type InstanceRef } from '../usage';
import { gaugeOf } from '../../metrics';
import { flushLater, oneAtATime } from '../../batched';

const FLUSH_INTERVAL_MS = 500;

const holder = globalThis as {
  __hubDownloads?: { pending: Map<string, number>; timer: NodeJS.Timeout | null; flushing: Promise<void> | undefined };
};
const state = (holder.__hubDownloads ??= { pending: new Map(), timer: null, flushing: undefined });
gaugeOf(
  'hub_batched_write_queue',
  'Entries waiting for a batched write',
  { queue: 'download_counts' },
  () => state.pending.size,
);

/** One keyed read of a template by an instance key. */
export function recordDownload(templateId: string, instance: InstanceRef) {
  const key = `${utcDay()} ${templateId} ${instance.keyId} ${instance.orgId}`;
  state.pending.set(key, (state.pending.get(key) ?? 0) + 1);
  flushLater(state, FLUSH_INTERVAL_MS, 'downloads', flushDownloads);
}

/** Writes the tally now, after a write already under way. Resolves when every read counted so far is stored. */
export const flushDownloads = oneAtATime(state, async () => {
  if (state.pending.size === 0) return;
  const batch = state.pending;
  state.pending = new Map();
  const parts = [...batch.keys()].map((k) => k.split(' '));
  const list = (i: number) => `{${parts.map((p) => p[i]).join(',')}}`;
  const counts = `{${[...batch.values()].join(',')}}`;
  try {
    const db = await getDb();
    // Data-modifying CTEs all run, referenced or not; rows of templates or keys deleted meanwhile are skipped.
    await db.execute(sql`
      with v as (select unnest(${list(0)}::date[]) as day, unnest(${list(1)}::uuid[]) as template_id,
                        unnest(${list(2)}::uuid[]) as key_id, unnest(${list(3)}::uuid[]) as org_id,
                        unnest(${counts}::int[]) as n),
      total as (update templates t set download_count = t.download_count + s.n
                  from (select template_id, sum(n)::int as n from v group by template_id) s
                 where t.id = s.template_id returning t.id),
      per_template as (insert into template_downloads_daily (day, template_id, downloads)
                       select v.day, v.template_id, sum(v.n)::int from v join templates t on t.id = v.template_id
                        group by v.day, v.template_id
                       on conflict (day, template_id) do update
                         set downloads = template_downloads_daily.downloads + excluded.downloads
                       returning 1),
      per_instance as (insert into instance_usage_daily (day, instance_key_id, org_id, downloads)
                       select v.day, v.key_id, v.org_id, sum(v.n)::int from v join instance_keys k on k.id = v.key_id
                        group by v.day, v.key_id, v.org_id
                       on conflict (day, instance_key_id) do update
                         set downloads = instance_usage_daily.downloads + excluded.downloads
                       returning 1)
      select (select count(*) from total) + (select count(*) from per_template) + (select count(*) from per_instance) as n`);
  } catch (err) {
    for (const [k, n] of batch) state.pending.set(k, (state.pending.get(k) ?? 0) + n);
    throw err;
  }
});
