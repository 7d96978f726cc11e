/** Dynamic DNS with HUB_DNS_PROVIDER=none (database only): hostname rule, source address, rate limit, refusals. */
import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { auditLog, dnsRecords } from '../../server/db/schema';
import { dnsLabel } from '../../server/domain/support/dns';
import { api, createKey, createOrg, createUser } from '../helpers';
import { EXPECTED_REFUSALS, refusals, supportWorld } from '../support-helpers';
import { reloadConfig } from '../../server/config';

process.env.HUB_DNS_ZONE = 'dyn.hub.test';
delete process.env.HUB_DNS_PROVIDER;

/** Moves the instance's last DNS change 11 s into the past, as if the rate-limit window had passed. */
async function elapse(keyId: string) {
  const db = await getDb();
  await db
    .update(auditLog)
    .set({ createdAt: sql`${auditLog.createdAt} - interval '11 seconds'` })
    .where(eq(auditLog.targetId, keyId));
}

const put = (token: string | null, body: unknown = {}, headers?: Record<string, string>) =>
  api('/dns', { method: 'PUT', token, body, headers });

afterEach(() => {
  delete process.env.HUB_TRUSTED_PROXIES;
});

describe('hostname rule', () => {
  it('is <org slug>-<first 8 hex of the key id>, DNS-safe, at most 63 characters per label', () => {
    const id = '3f2a9c1e-0000-4000-8000-000000000000';
    expect(dnsLabel('acme-corp', id)).toBe('acme-corp-3f2a9c1e');
    expect(dnsLabel('Acme_Corp..Europe', id)).toBe('acme-corp-europe-3f2a9c1e');
    expect(dnsLabel('---', id)).toBe('instance-3f2a9c1e');
    const long = dnsLabel('a'.repeat(80), id);
    expect(long).toHaveLength(63);
    expect(long.endsWith('-3f2a9c1e')).toBe(true);
    expect(dnsLabel(`${'b'.repeat(53)}-x`, id)).toBe(`${'b'.repeat(53)}-3f2a9c1e`); // no "--" left by the cut
    expect(dnsLabel('acme', id, 16)).toBe('acme-3f2a9c1e00004000');
    for (const label of [long, dnsLabel('Ünïcode Org', id)])
      expect(label).toMatch(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
  });
});

describe('PUT/GET/DELETE /dns', () => {
  it('registers an explicit address, returns it, shows it in instance-info, and keeps it in the database only', async () => {
    const { key } = await supportWorld({ slug: 'acme-dns' });
    const res = await put(key.secret, { ip: '192.0.2.10' });
    expect(res.status).toBe(200);
    const hostname = `acme-dns-${key.id.replace(/-/g, '').slice(0, 8)}.dyn.hub.test`;
    expect(res.body).toEqual({
      record: { hostname, ip: '192.0.2.10', updated_at: expect.any(String), publish_state: 'local' },
    });

    const got = await api('/dns', { token: key.secret });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);

    const info = await api('/instance-info', { token: key.secret });
    expect(info.body.instance.dns).toEqual({ hostname, ip: '192.0.2.10', updated_at: res.body.record.updated_at });

    // Same address again: a no-op, not rate limited, nothing written.
    const again = await put(key.secret, { ip: '192.0.2.10' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);

    // A new address (after the window) keeps the hostname; IPv6 is normalised.
    await elapse(key.id);
    const v6 = await put(key.secret, { ip: '2001:DB8:0:0::A' });
    expect(v6.status).toBe(200);
    expect(v6.body.record).toMatchObject({ hostname, ip: '2001:db8::a' });

    const db = await getDb();
    const audits = await db.select().from(auditLog).where(eq(auditLog.targetId, key.id));
    expect(audits.map((a) => a.action).sort()).toEqual(['dns_record.create', 'dns_record.update']);

    await elapse(key.id);
    const del = await api('/dns', { method: 'DELETE', token: key.secret });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    expect((await api('/dns', { token: key.secret })).status).toBe(404);
    expect((await api('/instance-info', { token: key.secret })).body.instance.dns).toBeNull();
    expect(await db.select().from(dnsRecords).where(eq(dnsRecords.instanceKeyId, key.id))).toEqual([]);
    // Nothing left to delete: not a change, not rate limited.
    const again2 = await api('/dns', { method: 'DELETE', token: key.secret });
    expect(again2.status).toBe(200);
    expect(again2.body).toEqual({ deleted: false });

    // Recreated later: the same name.
    await elapse(key.id);
    expect((await put(key.secret, { ip: '192.0.2.11' })).body.record.hostname).toBe(hostname);
  });

  it('gives every instance its own name, also when 8 hex digits collide', async () => {
    const admin = await createUser();
    const org = await createOrg({ slug: 'twins', admin });
    const a = await createKey(org.id, 'a');
    const b = await createKey(org.id, 'b');
    // Occupy b's 8-digit name with a's record.
    const db = await getDb();
    const taken = `${dnsLabel('twins', b.id)}.dyn.hub.test`;
    await db.insert(dnsRecords).values({ instanceKeyId: a.id, hostname: taken, ip: '192.0.2.1' });
    const res = await put(b.secret, { ip: '192.0.2.2' });
    expect(res.status).toBe(200);
    expect(res.body.record.hostname).toBe(`${dnsLabel('twins', b.id, 16)}.dyn.hub.test`);
  });

  it('takes the source address from X-Forwarded-For, trusting only HUB_TRUSTED_PROXIES beyond the last hop', async () => {
    const { key } = await supportWorld();
    const fromHeader = async (xff: string | null) => {
      await elapse(key.id);
      return put(key.secret, {}, xff === null ? {} : { 'x-forwarded-for': xff });
    };
    // No address at all (no header): the caller must send ip.
    const none = await fromHeader(null);
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/ip: .*source address/);

    // next start sets the header from the socket when the client sent none (IPv4-mapped on dual-stack sockets).
    expect((await fromHeader('::ffff:198.51.100.8')).body.record.ip).toBe('198.51.100.8');
    // Without trusted proxies only the last entry counts; the client-written part is ignored.
    expect((await fromHeader('203.0.113.9, 198.51.100.7')).body.record.ip).toBe('198.51.100.7');
    // With the proxy listed, its entry is skipped and the one before it is the client.
    process.env.HUB_TRUSTED_PROXIES = '198.51.100.0/24, 2001:db8:ffff::1';
    reloadConfig();
    expect((await fromHeader('10.9.9.9, 203.0.113.9, 198.51.100.7')).body.record.ip).toBe('203.0.113.9');
    expect((await fromHeader('203.0.113.20, 2001:db8:ffff::1, 198.51.100.7')).body.record.ip).toBe('203.0.113.20');
    expect((await fromHeader('[2001:db8::5]:443, 198.51.100.7:8080')).body.record.ip).toBe('2001:db8::5');
    // A garbage entry before reaching an untrusted one: no usable address.
    const garbage = await fromHeader('unknown, 198.51.100.7');
    expect(garbage.status).toBe(400);
    expect(garbage.body.message).toContain('ip');
    // A loopback source (e.g. an instance on the Hub's own machine) is not publishable.
    delete process.env.HUB_TRUSTED_PROXIES;
    reloadConfig();
    const loop = await fromHeader('127.0.0.1');
    expect(loop.status).toBe(400);
    expect(loop.body.message).toContain('send ip');
    // An explicit ip wins over the header.
    await elapse(key.id);
    expect((await put(key.secret, { ip: '192.0.2.99' }, { 'x-forwarded-for': '198.51.100.1' })).body.record.ip).toBe(
      '192.0.2.99',
    );
  });

  it('rejects bad addresses with a 400 naming ip, storing nothing', async () => {
    const { key } = await supportWorld();
    for (const ip of [
      'not-an-ip',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3',
      '',
      '0.0.0.0',
      '127.0.0.5',
      '::1',
      '::',
      'fe80::1',
      'ff02::1',
      '224.0.0.1',
      '255.255.255.255',
      'fe80::1%eth0',
      '1.2.3.4/24',
      'x'.repeat(100),
    ]) {
      const res = await put(key.secret, { ip });
      expect(res.status, ip).toBe(400);
      expect(res.body.message, ip).toContain('ip');
    }
    expect((await put(key.secret, { ip: 7 })).status).toBe(400);
    expect((await api('/dns', { token: key.secret })).status).toBe(404);
    // Private LAN addresses are fine (instances on a LAN).
    expect((await put(key.secret, { ip: '10.1.2.3' })).status).toBe(200);
  });

  it('allows one change per 10 s per instance: 429 with Retry-After; unchanged address is no change', async () => {
    const { key } = await supportWorld();
    expect((await put(key.secret, { ip: '192.0.2.20' })).status).toBe(200);
    const limited = await put(key.secret, { ip: '192.0.2.21' });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('TOO_MANY_REQUESTS');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(limited.body.message).toContain(`${retryAfter} s`);
    // Unchanged address: fine while limited.
    expect((await put(key.secret, { ip: '192.0.2.20' })).status).toBe(200);
    // Delete is a change too.
    expect((await api('/dns', { method: 'DELETE', token: key.secret })).status).toBe(429);
    expect((await api('/dns', { token: key.secret })).body.record.ip).toBe('192.0.2.20');

    // Another instance is not affected.
    const other = await supportWorld();
    expect((await put(other.key.secret, { ip: '192.0.2.30' })).status).toBe(200);

    // Once the window has passed, the change goes through; then the window starts again.
    await elapse(key.id);
    expect((await put(key.secret, { ip: '192.0.2.21' })).status).toBe(200);
    expect((await put(key.secret, { ip: '192.0.2.22' })).status).toBe(429);

    // Deleting and re-creating does not reset the window.
    await elapse(key.id);
    expect((await api('/dns', { method: 'DELETE', token: key.secret })).body).toEqual({ deleted: true });
    expect((await put(key.secret, { ip: '192.0.2.23' })).status).toBe(429);
  });

  it('lets exactly one of several concurrent changes through (the limit lives in the database)', async () => {
    const { key } = await supportWorld();
    const results = await Promise.all(
      ['192.0.2.41', '192.0.2.42', '192.0.2.43', '192.0.2.44'].map((ip) => put(key.secret, { ip })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429, 429, 429]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await api('/dns', { token: key.secret })).body.record.ip).toBe(winner.body.record.ip);
    const db = await getDb();
    expect(await db.select().from(auditLog).where(eq(auditLog.targetId, key.id))).toHaveLength(1);
  });

  it('refuses everything but an active instance key', async () => {
    expect(await refusals((token) => api('/dns', { token }))).toEqual(EXPECTED_REFUSALS);
    expect(await refusals((token) => put(token, { ip: '192.0.2.1' }))).toEqual(EXPECTED_REFUSALS);
    expect(await refusals((token) => api('/dns', { method: 'DELETE', token }))).toEqual(EXPECTED_REFUSALS);
  });
});
