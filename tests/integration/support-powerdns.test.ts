/**
 * Dynamic DNS against a real PowerDNS Authoritative server (pdns_server with the sqlite3 backend, started
 * here on 127.0.0.1): records pushed through the Hub are resolved with real DNS queries; failed pushes
 * stay pending, are visible to admins and are retried in the background.
 */
import { Resolver } from 'node:dns/promises';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { auditLog, dnsRecords } from '../../server/db/schema';
import { MAX_PUBLISH_ATTEMPTS, runPublishPass, stopDnsPublisher } from '../../server/domain/support/dnsPublisher';
import { api, createUser } from '../helpers';
import { startPdns, type PdnsServer } from './pdns-server';
import { supportWorld, trpcAs } from '../support-helpers';
import { reloadConfig } from '../../server/config';

const ZONE = 'hub.test';
let pdns: PdnsServer;
let resolver: Resolver;

beforeAll(async () => {
  pdns = await startPdns();
  await pdns.createZone(ZONE);
  process.env.HUB_DNS_PROVIDER = 'powerdns';
  process.env.HUB_DNS_ZONE = ZONE;
  process.env.HUB_PDNS_API_URL = pdns.apiUrl;
  process.env.HUB_PDNS_API_KEY = pdns.apiKey;
  resolver = new Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([`127.0.0.1:${pdns.dnsPort}`]);
});

afterAll(async () => {
  await stopDnsPublisher();
  await pdns?.stop();
});

async function elapse(keyId: string) {
  const db = await getDb();
  await db
    .update(auditLog)
    .set({ createdAt: sql`${auditLog.createdAt} - interval '11 seconds'` })
    .where(eq(auditLog.targetId, keyId));
}

/** A real DNS query to the test server: the addresses, or the resolver's error code (ENOTFOUND = NXDOMAIN, ENODATA = no such type). */
async function lookup(hostname: string, type: 'A' | 'AAAA') {
  try {
    const answers =
      type === 'A'
        ? await resolver.resolve4(hostname, { ttl: true })
        : await resolver.resolve6(hostname, { ttl: true });
    return answers;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** One publisher pass run by the test, with the background publisher stopped (and its pass in flight finished). */
async function manualPass() {
  await stopDnsPublisher();
  return runPublishPass();
}

async function recordRow(keyId: string) {
  const db = await getDb();
  const [row] = await db.select().from(dnsRecords).where(eq(dnsRecords.instanceKeyId, keyId));
  return row ?? null;
}

describe('PowerDNS provider', () => {
  it('publishes A and AAAA records that a DNS query resolves, with a short TTL, and removes them on DELETE', async () => {
    const { key } = await supportWorld({ slug: 'resolvable' });
    const res = await api('/dns', { method: 'PUT', token: key.secret, body: { ip: '192.0.2.55' } });
    expect(res.status).toBe(200);
    expect(res.body.record.publish_state).toBe('published');
    const hostname: string = res.body.record.hostname;
    expect(hostname).toBe(`resolvable-${key.id.replace(/-/g, '').slice(0, 8)}.${ZONE}`);
    expect(await lookup(hostname, 'A')).toEqual([{ address: '192.0.2.55', ttl: 60 }]);

    // Moving to IPv6 replaces the A record by an AAAA record.
    await elapse(key.id);
    const v6 = await api('/dns', { method: 'PUT', token: key.secret, body: { ip: '2001:db8::55' } });
    expect(v6.body.record).toMatchObject({ hostname, ip: '2001:db8::55', publish_state: 'published' });
    expect(await lookup(hostname, 'AAAA')).toEqual([{ address: '2001:db8::55', ttl: 60 }]);
    expect(await lookup(hostname, 'A')).toBe('ENODATA');

    // The source address works end to end too.
    await elapse(key.id);
    const fromSource = await api('/dns', {
      method: 'PUT',
      token: key.secret,
      body: {},
      headers: { 'x-forwarded-for': '198.51.100.56' },
    });
    expect(fromSource.body.record).toMatchObject({ ip: '198.51.100.56', publish_state: 'published' });
    expect(await lookup(hostname, 'A')).toEqual([{ address: '198.51.100.56', ttl: 60 }]);
    expect(await lookup(hostname, 'AAAA')).toBe('ENODATA');

    await elapse(key.id);
    const del = await api('/dns', { method: 'DELETE', token: key.secret });
    expect(del.body).toEqual({ deleted: true });
    expect(await lookup(hostname, 'A')).toBe('ENOTFOUND');
    expect(await recordRow(key.id)).toBeNull();
  });

  it('answers "pending" when the push fails, shows the error to admins, and publishes in the background', async () => {
    const { key, member } = await supportWorld({ slug: 'retrying' });
    const platformAdmin = await createUser({ role: 'admin' });
    process.env.HUB_PDNS_API_KEY = 'wrong-key';
    reloadConfig();
    try {
      const res = await api('/dns', { method: 'PUT', token: key.secret, body: { ip: '192.0.2.77' } });
      expect(res.status).toBe(200);
      expect(res.body.record.publish_state).toBe('pending');
      const hostname: string = res.body.record.hostname;
      expect(await lookup(hostname, 'A')).toBe('ENOTFOUND');

      const row = await recordRow(key.id);
      expect(row).toMatchObject({ publishState: 'pending', publishAttempts: 1 });
      expect(row!.publishError).toContain('401');
      expect(row!.publishError).not.toContain('wrong-key');
      expect(row!.publishNextAt!.getTime()).toBeGreaterThan(Date.now());

      // Admins see the state and the error; organization members the state only.
      const adminView = await (await trpcAs(platformAdmin.token)).support.listInstances({ publish_state: 'pending' });
      const mine = adminView.instances.find((i) => i.id === key.id)!;
      expect(mine.dns_publish).toMatchObject({ state: 'pending', attempts: 1, deleting: false });
      expect(mine.dns_publish!.error).toContain('401');
      const memberView = await (await trpcAs(member.token)).support.listInstances({});
      expect(memberView.instances.map((i) => i.id)).toEqual([key.id]);
      expect(memberView.instances[0]!.dns_publish).toMatchObject({ state: 'pending', error: null });
    } finally {
      process.env.HUB_PDNS_API_KEY = pdns.apiKey;
      reloadConfig();
    }
    // The background publisher (started by the request) retries after the back-off and succeeds.
    const published = await waitFor(
      'the background publish',
      () => recordRow(key.id),
      (r) => r?.publishState === 'published',
    );
    expect(published).toMatchObject({ publishAttempts: 0, publishError: null, publishNextAt: null });
    expect(await lookup(published!.hostname, 'A')).toEqual([{ address: '192.0.2.77', ttl: 60 }]);
  });

  it('gives up after the last attempt (failed), until an admin retries', async () => {
    const { key } = await supportWorld({ slug: 'giving-up' });
    const platformAdmin = await createUser({ role: 'admin' });
    process.env.HUB_PDNS_API_URL = 'http://127.0.0.1:9'; // nothing listens on the discard port
    reloadConfig();
    try {
      const res = await api('/dns', { method: 'PUT', token: key.secret, body: { ip: '192.0.2.88' } });
      expect(res.body.record.publish_state).toBe('pending');
      expect((await recordRow(key.id))!.publishError).toContain('unreachable');
      await stopDnsPublisher(); // the passes below are driven by hand
      const db = await getDb();
      await db
        .update(dnsRecords)
        .set({ publishAttempts: MAX_PUBLISH_ATTEMPTS - 1, publishNextAt: sql`now()` })
        .where(eq(dnsRecords.instanceKeyId, key.id));
      expect(await manualPass()).toBeGreaterThanOrEqual(1);
      expect(await recordRow(key.id)).toMatchObject({
        publishState: 'failed',
        publishAttempts: MAX_PUBLISH_ATTEMPTS,
        publishNextAt: null,
      });
      // Failed records are not picked up again by the background passes.
      await manualPass();
      expect((await recordRow(key.id))!.publishAttempts).toBe(MAX_PUBLISH_ATTEMPTS);
      const failedView = await (await trpcAs(platformAdmin.token)).support.listInstances({ publish_state: 'failed' });
      expect(failedView.instances.map((i) => i.id)).toContain(key.id);
    } finally {
      process.env.HUB_PDNS_API_URL = pdns.apiUrl;
      reloadConfig();
    }
    // Organization members may not retry; platform admins may.
    const { member } = await supportWorld();
    await expect((await trpcAs(member.token)).support.retryDnsPublish({ instance_id: key.id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const retried = await (await trpcAs(platformAdmin.token)).support.retryDnsPublish({ instance_id: key.id });
    expect(retried).toMatchObject({ publish_state: 'published', error: null });
    expect(await lookup(retried!.hostname, 'A')).toEqual([{ address: '192.0.2.88', ttl: 60 }]);
    const db = await getDb();
    const audits = await db.select().from(auditLog).where(eq(auditLog.targetId, key.id));
    expect(audits.map((a) => a.action)).toContain('dns_record.retry_publish');
  });

  it('keeps a deleted record as a tombstone until the DNS server has dropped it (surviving a restart of the publisher)', async () => {
    const { key } = await supportWorld({ slug: 'tombstone' });
    const res = await api('/dns', { method: 'PUT', token: key.secret, body: { ip: '192.0.2.99' } });
    const hostname: string = res.body.record.hostname;
    expect(await lookup(hostname, 'A')).toEqual([{ address: '192.0.2.99', ttl: 60 }]);
    await elapse(key.id);
    process.env.HUB_PDNS_API_KEY = 'wrong-key';
    reloadConfig();
    try {
      expect((await api('/dns', { method: 'DELETE', token: key.secret })).body).toEqual({ deleted: true });
      await stopDnsPublisher(); // as if this process had stopped
    } finally {
      process.env.HUB_PDNS_API_KEY = pdns.apiKey;
      reloadConfig();
    }
    // For the instance the record is gone; the DNS server still has it, and the tombstone says so.
    expect((await api('/dns', { token: key.secret })).status).toBe(404);
    expect((await api('/instance-info', { token: key.secret })).body.instance.dns).toBeNull();
    expect(await recordRow(key.id)).toMatchObject({ publishState: 'pending', deletedAt: expect.any(Date) });
    expect(await lookup(hostname, 'A')).toEqual([{ address: '192.0.2.99', ttl: 60 }]);

    // A "new process" (nothing in memory) picks the due tombstone up from the database.
    const db = await getDb();
    await db
      .update(dnsRecords)
      .set({ publishNextAt: sql`now()` })
      .where(eq(dnsRecords.instanceKeyId, key.id));
    await manualPass();
    expect(await recordRow(key.id)).toBeNull();
    expect(await lookup(hostname, 'A')).toBe('ENOTFOUND');
  });

  it('records made while the provider was "none" are published once it is switched on', async () => {
    const { key } = await supportWorld({ slug: 'switched-on' });
    process.env.HUB_DNS_PROVIDER = 'none';
    reloadConfig();
    let hostname: string;
    try {
      const res = await api('/dns', { method: 'PUT', token: key.secret, body: { ip: '192.0.2.111' } });
      expect(res.body.record.publish_state).toBe('local');
      hostname = res.body.record.hostname;
    } finally {
      process.env.HUB_DNS_PROVIDER = 'powerdns';
      reloadConfig();
    }
    expect(await lookup(hostname, 'A')).toBe('ENOTFOUND');
    await manualPass();
    expect((await recordRow(key.id))!.publishState).toBe('published');
    expect(await lookup(hostname, 'A')).toEqual([{ address: '192.0.2.111', ttl: 60 }]);
  });
});
