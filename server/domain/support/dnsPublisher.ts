/**
 * Publishing dynamic DNS records to the DNS server (HUB_DNS_PROVIDER=powerdns), with retries.
 *
 * The queue is the dns_records table itself: a record whose publish_state is pending (or local, when the
 * provider was switched on later) is due once publish_next_at has passed. Claiming a record sets
 * publish_next_at a lease ahead (`for update skip locked`), so several Hub processes on one database never
 * push the same record at once; a failure counts an attempt, keeps the error for admins and backs off
 * (5 s, 10 s, 20 s … at most 10 min); after MAX_PUBLISH_ATTEMPTS the record is `failed` until the instance
 * changes it again or an admin retries. A push is only marked published when the record is still the one
 * that was pushed (compare on updated_at); otherwise the record is queued again, so a slow stale push can
 * never leave the DNS server behind the database.
 *
 * Each process runs a poller (an unref'd timer, every 5 s) that is started by the first support request it
 * serves. Nothing is lost across restarts: the state is in the database, and the next process picks the
 * due records up when it starts its poller.
 */
import { and, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { execRows, getDb, type Db } from '../../db/client';
import { dnsRecords } from '../../db/schema';
import { normalizeIp } from './addresses';
import { DnsPushError, pushDeletion, pushRecord } from './powerdns';
import { config, ConfigError } from '../../config';
import { logger, runInBackground } from '../../log';

export const MAX_PUBLISH_ATTEMPTS = 10;
const LEASE = sql.raw(`interval '30 seconds'`);
const POLL_MS = 5_000;
const BATCH = 20;

/** updated_at to the microsecond, as text: the record's version for compare-and-set. */
export const RECORD_VERSION = sql<string>`(extract(epoch from ${dnsRecords.updatedAt}) * 1000000)::bigint::text`;

interface Claimed {
  keyId: string;
  hostname: string;
  ip: string;
  deleted: boolean;
  version: string;
}

async function claim(db: Db, where: SQL): Promise<Claimed[]> {
  return execRows<Claimed>(
    db,
    sql`update dns_records d set publish_next_at = now() + ${LEASE}
         where d.instance_key_id in (
           select r.instance_key_id from dns_records r where ${where}
            order by r.publish_next_at nulls first limit ${sql.raw(String(BATCH))}
            for update skip locked)
        returning d.instance_key_id as "keyId", d.hostname, d.ip, (d.deleted_at is not null) as deleted,
                  (extract(epoch from d.updated_at) * 1000000)::bigint::text as version`,
  );
}

function describe(err: unknown): string {
  if (err instanceof DnsPushError || err instanceof ConfigError) return err.message;
  logger.error({ err }, 'DNS publish failed unexpectedly');
  return 'Unexpected error while publishing (see the Hub log)';
}

export type PublishOutcome = 'published' | 'failed' | 'superseded';

async function publishClaimed(db: Db, row: Claimed): Promise<PublishOutcome> {
  const sameVersion = and(eq(dnsRecords.instanceKeyId, row.keyId), sql`${RECORD_VERSION} = ${row.version}`);
  try {
    if (row.deleted) {
      await pushDeletion(row.hostname);
    } else {
      const parsed = normalizeIp(row.ip);
      if (!parsed) throw new DnsPushError(`stored address "${row.ip}" is not an IP address`);
      await pushRecord(row.hostname, parsed.ip, parsed.family);
    }
  } catch (err) {
    const message = describe(err);
    await db
      .update(dnsRecords)
      .set({
        publishAttempts: sql`${dnsRecords.publishAttempts} + 1`,
        publishError: message,
        publishState: sql`case when ${dnsRecords.publishAttempts} + 1 >= ${MAX_PUBLISH_ATTEMPTS} then 'failed' else 'pending' end`,
        publishNextAt: sql`case when ${dnsRecords.publishAttempts} + 1 >= ${MAX_PUBLISH_ATTEMPTS} then null
                           else now() + least(600, 5 * power(2, ${dnsRecords.publishAttempts})) * interval '1 second' end`,
      })
      .where(sameVersion);
    return 'failed';
  }
  if (row.deleted) {
    const gone = await db
      .delete(dnsRecords)
      .where(and(sameVersion, isNotNull(dnsRecords.deletedAt)))
      .returning({ id: dnsRecords.instanceKeyId });
    if (gone.length > 0) return 'published';
  } else {
    const done = await db
      .update(dnsRecords)
      .set({
        publishState: 'published',
        publishedAt: sql`now()`,
        publishAttempts: 0,
        publishError: null,
        publishNextAt: null,
      })
      .where(sameVersion)
      .returning({ id: dnsRecords.instanceKeyId });
    if (done.length > 0) return 'published';
  }
  // The record changed while this push was in flight, which may have overwritten a newer push: push the current state again.
  const requeued = await db
    .update(dnsRecords)
    .set({ publishState: 'pending', publishNextAt: sql`now()`, publishAttempts: 0 })
    .where(eq(dnsRecords.instanceKeyId, row.keyId))
    .returning({ id: dnsRecords.instanceKeyId });
  if (requeued.length === 0 && !row.deleted) {
    // The record is gone altogether (deleted and unpublished meanwhile): take back what this push re-created.
    await pushDeletion(row.hostname).catch((err) =>
      logger.warn({ hostname: row.hostname, err: describe(err) }, 'DNS cleanup failed'),
    );
  }
  return 'superseded';
}

/** Pushes one record that has just changed (called after the change commits). Null when nothing was due. */
export async function publishNow(keyId: string): Promise<PublishOutcome | null> {
  const db = await getDb();
  const [row] = await claim(db, sql`r.instance_key_id = ${keyId} and r.publish_state = 'pending'`);
  return row ? publishClaimed(db, row) : null;
}

/** One pass over every due record; returns how many were attempted. */
export async function runPublishPass(): Promise<number> {
  const db = await getDb();
  let attempted = 0;
  for (;;) {
    const rows = await claim(
      db,
      sql`r.publish_state in ('pending', 'local') and (r.publish_next_at is null or r.publish_next_at <= now())`,
    );
    await Promise.all(rows.map((row) => publishClaimed(db, row)));
    attempted += rows.length;
    if (rows.length < BATCH) return attempted;
  }
}

type PollerState = { timer: NodeJS.Timeout | null; generation: number; running: Promise<void> | null };
const poller = globalThis as unknown as { __hubDnsPoller?: PollerState };

/** Starts this process's background publisher when the provider is powerdns (idempotent). */
export function ensureDnsPublisher(): void {
  try {
    if (config.support.dnsProvider !== 'powerdns') return;
  } catch (err) {
    logger.error({ err: (err as Error).message }, 'DNS publisher failed');
    return;
  }
  poller.__hubDnsPoller ??= { timer: null, generation: 0, running: null };
  if (poller.__hubDnsPoller.timer) return;
  schedule(poller.__hubDnsPoller.generation, 0);
}

function schedule(generation: number, delay: number) {
  const state = poller.__hubDnsPoller!;
  state.timer = setTimeout(() => {
    state.running = runInBackground('dns_publisher', async () => {
      try {
        if (config.support.dnsProvider === 'powerdns') await runPublishPass();
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'DNS publisher pass failed');
      }
    });
    void state.running.finally(() => {
      state.running = null;
      if (state.generation === generation) schedule(generation, POLL_MS);
    });
  }, delay);
  state.timer.unref();
}

/** Stops this process's background publisher and waits for a pass in flight (tests, before closing the database). */
export async function stopDnsPublisher(): Promise<void> {
  const state = poller.__hubDnsPoller;
  if (!state) return;
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
  state.generation++;
  await state.running;
}
