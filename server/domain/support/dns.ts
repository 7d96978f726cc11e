/**
 * Dynamic DNS: one A or AAAA record per instance key, at a hostname derived from the organization and
 * the key, published to the DNS server by dnsPublisher.ts.
 *
 * Hostname rule: `<org part>-<key part>.<HUB_DNS_ZONE>`. The key part is the first 8 hex digits of the
 * instance key's id (16, then all 32, in the unlikely case another record already holds the shorter name);
 * the org part is the organization slug lower-cased, every run of characters other than a-z and 0-9
 * replaced by one hyphen, trimmed of hyphens and cut so that the label stays within 63 characters
 * ("instance" when nothing is left). Example: org "acme-corp", key 3f2a9c1e-… → acme-corp-3f2a9c1e.<zone>.
 * The name is computed when the record is first created and stored, so it stays the same for as long as
 * the record exists, whatever happens to the slug later; the key id survives re-issue, so does the name.
 *
 * Rate limit: at most one change (create, new address, delete) per instance per DNS_CHANGE_INTERVAL_SECONDS.
 * Changes are serialised per instance with an advisory lock and timed from the audit log, which every change
 * writes in its own transaction, so the limit holds across Hub processes. Re-sending the current address is
 * not a change: no write, no audit record, no rate limit.
 */
import { ServiceError } from '../errors';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { execRows, getDb, type Tx } from '../../db/client';
import { dnsRecords, instanceKeys, organizations } from '../../db/schema';
import { writeAudit } from '../audit';
import type { InstancePrincipal, UserPrincipal } from '../principal';
import { ensureDnsPublisher, publishNow } from './dnsPublisher';
import { config } from '../../config';

export const DNS_CHANGE_INTERVAL_SECONDS = 10;
const DNS_LOCK = 72_620_006;

export type DnsRecordRow = typeof dnsRecords.$inferSelect;

/** The DNS label of an instance (see the file comment). */
export function dnsLabel(orgSlug: string, keyId: string, hexDigits = 8): string {
  const keyPart = keyId.replace(/-/g, '').toLowerCase().slice(0, hexDigits);
  const orgPart =
    orgSlug
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63 - 1 - keyPart.length)
      .replace(/-+$/, '') || 'instance';
  return `${orgPart}-${keyPart}`;
}

/** The instance's current record (not one being deleted), or null. */
export async function getDnsRecord(keyId: string): Promise<DnsRecordRow | null> {
  ensureDnsPublisher();
  const db = await getDb();
  const [row] = await db
    .select()
    .from(dnsRecords)
    .where(and(eq(dnsRecords.instanceKeyId, keyId), isNull(dnsRecords.deletedAt)));
  return row ?? null;
}

async function lockInstance(tx: Tx, keyId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(String(DNS_LOCK))}, hashtext(${keyId}))`);
}

async function assertChangeAllowed(tx: Tx, keyId: string) {
  const [row] = await execRows<{ wait: number | string | null }>(
    tx,
    sql`select ceil(extract(epoch from (max(created_at) + interval '${sql.raw(String(DNS_CHANGE_INTERVAL_SECONDS))} seconds' - clock_timestamp())))::int as wait
          from audit_log
         where target_type = 'dns_record' and target_id = ${keyId} and actor_type = 'instance'`,
  );
  const wait = row?.wait === null || row?.wait === undefined ? 0 : Number(row.wait);
  if (wait > 0) {
    const retryAfterSeconds = Math.min(wait, DNS_CHANGE_INTERVAL_SECONDS);
    throw new ServiceError(
      'rate_limited',
      `At most one DNS change per ${DNS_CHANGE_INTERVAL_SECONDS} seconds per instance; retry in ${retryAfterSeconds} s`,
      {
        retryAfterSeconds,
      },
    );
  }
}

/** Sets the instance's address; returns the record and whether anything changed. */
export async function setDnsRecord(
  instance: InstancePrincipal,
  ip: string,
): Promise<{ record: DnsRecordRow; changed: boolean }> {
  const provider = config.support.dnsProvider;
  const zone = config.support.dnsZone;
  const db = await getDb();
  const result = await db.transaction(async (tx) => {
    await lockInstance(tx, instance.keyId);
    const [current] = await tx.select().from(dnsRecords).where(eq(dnsRecords.instanceKeyId, instance.keyId));
    if (current && !current.deletedAt && current.ip === ip) return { record: current, changed: false };
    await assertChangeAllowed(tx, instance.keyId);
    const publish = {
      publishState: provider === 'powerdns' ? ('pending' as const) : ('local' as const),
      publishAttempts: 0,
      publishError: null,
      publishNextAt: sql`now()`,
      deletedAt: null,
      updatedAt: sql`now()`,
    };
    let record: DnsRecordRow | undefined;
    if (current) {
      [record] = await tx
        .update(dnsRecords)
        .set({ ip, ...publish })
        .where(eq(dnsRecords.instanceKeyId, instance.keyId))
        .returning();
    } else {
      const [org] = await tx
        .select({ slug: organizations.slug })
        .from(organizations)
        .where(eq(organizations.id, instance.orgId));
      for (const digits of [8, 16, 32]) {
        const hostname = `${dnsLabel(org?.slug ?? '', instance.keyId, digits)}.${zone}`;
        [record] = await tx
          .insert(dnsRecords)
          .values({ instanceKeyId: instance.keyId, hostname, ip, ...publish })
          .onConflictDoNothing()
          .returning();
        if (record) break;
      }
      if (!record) throw new Error(`no free DNS name for instance ${instance.keyId}`);
    }
    await writeAudit(tx, {
      actor: instance,
      action: current && !current.deletedAt ? 'dns_record.update' : 'dns_record.create',
      targetType: 'dns_record',
      targetId: instance.keyId,
      orgId: instance.orgId,
      details: { hostname: record!.hostname, ip, previous_ip: current && !current.deletedAt ? current.ip : null },
    });
    return { record: record!, changed: true };
  });
  if (result.changed && provider === 'powerdns') {
    await publishNow(instance.keyId);
    ensureDnsPublisher();
    return { record: (await getDnsRecord(instance.keyId)) ?? result.record, changed: true };
  }
  return result;
}

/** Deletes the instance's record (it stays as a tombstone until the DNS server has dropped it). False when there is none. */
export async function deleteDnsRecord(instance: InstancePrincipal): Promise<boolean> {
  const provider = config.support.dnsProvider;
  const db = await getDb();
  const outcome = await db.transaction(async (tx) => {
    await lockInstance(tx, instance.keyId);
    const [current] = await tx.select().from(dnsRecords).where(eq(dnsRecords.instanceKeyId, instance.keyId));
    if (!current || current.deletedAt) return 'none' as const;
    await assertChangeAllowed(tx, instance.keyId);
    let tombstone = false;
    if (provider === 'powerdns' && current.publishState !== 'local') {
      await tx
        .update(dnsRecords)
        .set({
          deletedAt: sql`now()`,
          updatedAt: sql`now()`,
          publishState: 'pending',
          publishAttempts: 0,
          publishError: null,
          publishNextAt: sql`now()`,
        })
        .where(eq(dnsRecords.instanceKeyId, instance.keyId));
      tombstone = true;
    } else {
      // Never published (provider none, or switched on after this record was last changed): nothing to take back.
      await tx.delete(dnsRecords).where(eq(dnsRecords.instanceKeyId, instance.keyId));
    }
    await writeAudit(tx, {
      actor: instance,
      action: 'dns_record.delete',
      targetType: 'dns_record',
      targetId: instance.keyId,
      orgId: instance.orgId,
      details: { hostname: current.hostname, ip: current.ip },
    });
    return tombstone ? ('tombstone' as const) : ('deleted' as const);
  });
  if (outcome === 'tombstone') {
    await publishNow(instance.keyId);
    ensureDnsPublisher();
  }
  return outcome !== 'none';
}

/** Admin: publish a record again now (after a failure). Null when the instance has no record. */
export async function retryDnsPublish(admin: UserPrincipal, keyId: string): Promise<DnsRecordRow | null> {
  if (config.support.dnsProvider !== 'powerdns') {
    throw new ServiceError(
      'invalid',
      'HUB_DNS_PROVIDER is "none": records are kept in the Hub only, there is nothing to publish',
    );
  }
  const db = await getDb();
  const requeued = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(dnsRecords)
      .set({ publishState: 'pending', publishAttempts: 0, publishError: null, publishNextAt: sql`now()` })
      .where(and(eq(dnsRecords.instanceKeyId, keyId), inArray(dnsRecords.publishState, ['failed', 'pending', 'local'])))
      .returning();
    if (!row) return false;
    const [key] = await tx.select({ orgId: instanceKeys.orgId }).from(instanceKeys).where(eq(instanceKeys.id, keyId));
    await writeAudit(tx, {
      actor: admin,
      action: 'dns_record.retry_publish',
      targetType: 'dns_record',
      targetId: keyId,
      orgId: key?.orgId ?? null,
      details: { hostname: row.hostname, ip: row.ip, deleting: row.deletedAt !== null },
    });
    return true;
  });
  if (requeued) {
    await publishNow(keyId);
    ensureDnsPublisher();
  }
  const [row] = await db.select().from(dnsRecords).where(eq(dnsRecords.instanceKeyId, keyId));
  return row ?? null;
}
