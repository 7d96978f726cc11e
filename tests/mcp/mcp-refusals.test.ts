/**
 * The refusal table of /mcp. Each token is first shown to work (so the refusal is caused by the change
 * under test), then the change is made, then the call must be refused with 401 (403 for a suspended
 * organization), WWW-Authenticate: Bearer and a JSON body, and the instance must not have received anything.
 */
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { personalAccessTokens } from '../../server/db/schema';
import { bump } from '../../server/db/invalidation';
import { api, createKey, createUser, joinByInvitation } from '../helpers';
import { mintToken, rawInitialize, registerMcpUrl } from '../mcp-harness';
import { useMcpInstance } from '../fixtures/mcp-instance';

const mcp = useMcpInstance({ admin: { name: 'Org Admin' }, keyName: 'core' });
let { hub, upstream, admin, org, key } = mcp;
beforeAll(() => void ({ hub, upstream, admin, org, key } = mcp));

async function member(name = 'Member') {
  const user = await createUser({ name });
  await joinByInvitation(admin, user);
  return user;
}

/** Asserts the token works now, so that a later refusal is caused by what the test changes. */
async function expectWorks(token: string) {
  const res = await rawInitialize(hub.url, `Bearer ${token}`);
  expect(res.status, res.text).toBe(200);
}

async function expectRefused(authorization: string | null, status: 401 | 403, reason: string) {
  const before = upstream.requests.length;
  const res = await rawInitialize(hub.url, authorization);
  expect({ status: res.status, reason: res.body?.reason }).toEqual({ status, reason });
  expect(res.headers.get('www-authenticate')).toMatch(
    status === 401
      ? /^Bearer realm="hub", error="invalid_token", error_description="[^"]+"$/
      : /^Bearer realm="hub", error="insufficient_scope"/,
  );
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  expect(res.body).toMatchObject({ code: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', message: expect.any(String) });
  expect(res.headers.get('mcp-session-id')).toBeNull();
  expect(upstream.requests.length).toBe(before); // nothing forwarded
  return res;
}

describe('/mcp refusals', () => {
  it('no token', async () => {
    const res = await expectRefused(null, 401, 'missing_token');
    expect(res.body.message).toMatch(/Bearer svp_/);
  });

  it('garbage, a non-Bearer header, and an svp_ token with a bad checksum', async () => {
    await expectRefused('Bearer garbage', 401, 'not_a_personal_access_token');
    await expectRefused('Basic dXNlcjpwYXNz', 401, 'not_a_personal_access_token');
    const t = await mintToken(admin.token, key.id);
    const flipped = t.token.slice(0, -1) + (t.token.endsWith('A') ? 'B' : 'A');
    await expectRefused(`Bearer ${flipped}`, 401, 'malformed_token');
    await expectRefused('Bearer svp_0123456789012345678901234567890123456789', 401, 'malformed_token');
  });

  it('a well-formed token the Hub never issued', async () => {
    const { issueSecret } = await import('@shared/tokens');
    await expectRefused(`Bearer ${issueSecret('svp_').secret}`, 401, 'unknown_token');
  });

  it('an instance key and a Hub JWT', async () => {
    const res = await expectRefused(`Bearer ${key.secret}`, 401, 'not_a_personal_access_token');
    expect(res.body.message).toMatch(/Instance keys are not accepted/);
    await expectRefused(`Bearer ${admin.token}`, 401, 'not_a_personal_access_token');
  });

  it('expired', async () => {
    const t = await mintToken(admin.token, key.id, { expires_in_days: 1 });
    await expectWorks(t.token);
    const db = await getDb();
    await db
      .update(personalAccessTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(personalAccessTokens.id, t.id));
    // A direct database write bypasses the Hub's change announcements: announce it as the Hub would.
    bump('auth');
    await expectRefused(`Bearer ${t.token}`, 401, 'expired');
  });

  it('revoked (by its minter)', async () => {
    const t = await mintToken(admin.token, key.id);
    await expectWorks(t.token);
    expect((await api('/account/tokens', { method: 'DELETE', token: admin.token, body: { id: t.id } })).status).toBe(
      200,
    );
    await expectRefused(`Bearer ${t.token}`, 401, 'revoked');
  });

  it('the rotated-away secret (the new one works, same id)', async () => {
    const t = await mintToken(admin.token, key.id);
    await expectWorks(t.token);
    const rotated = await api('/account/tokens', { method: 'PUT', token: admin.token, body: { id: t.id } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.token.id).toBe(t.id);
    await expectRefused(`Bearer ${t.token}`, 401, 'unknown_token');
    await expectWorks(rotated.body.token.token);
  });

  it('minter removed from the organization — and still refused after being added back', async () => {
    const bob = await member('Bob');
    const t = await mintToken(bob.token, key.id);
    await expectWorks(t.token);
    const removed = await api('/account/members', { method: 'DELETE', token: admin.token, body: { user_id: bob.id } });
    expect(removed.status).toBe(200);
    await expectRefused(`Bearer ${t.token}`, 401, 'membership_ended');
    // Re-adding starts a new membership: the old token stays dead (documented choice), new ones work.
    await joinByInvitation(admin, bob);
    await expectRefused(`Bearer ${t.token}`, 401, 'membership_ended');
    const fresh = await mintToken(bob.token, key.id);
    await expectWorks(fresh.token);
  });

  it('minter leaves the organization — and still refused after joining again', async () => {
    const dora = await member('Dora');
    const t = await mintToken(dora.token, key.id);
    await expectWorks(t.token);
    const left = await api('/account/leave', { method: 'POST', token: dora.token, body: {} });
    expect(left.status).toBe(200);
    await expectRefused(`Bearer ${t.token}`, 401, 'membership_ended');
    await joinByInvitation(admin, dora);
    await expectRefused(`Bearer ${t.token}`, 401, 'membership_ended');
  });

  it('minter deleted: the token is deleted with the account', async () => {
    const carol = await member('Carol');
    const t = await mintToken(carol.token, key.id);
    await expectWorks(t.token);
    const platformAdmin = await createUser({ role: 'admin' });
    expect(
      (await api('/admin/users', { method: 'DELETE', token: platformAdmin.token, body: { id: carol.id } })).status,
    ).toBe(200);
    const db = await getDb();
    expect(await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, t.id))).toEqual([]);
    await expectRefused(`Bearer ${t.token}`, 401, 'unknown_token');
  });

  it('the bound instance key revoked', async () => {
    const other = await createKey(org.id, 'to be revoked');
    await registerMcpUrl(other, upstream.mcpUrl(other.id));
    const t = await mintToken(admin.token, other.id);
    await expectWorks(t.token);
    expect(
      (await api('/account/api-keys', { method: 'DELETE', token: admin.token, body: { id: other.id } })).status,
    ).toBe(200);
    await expectRefused(`Bearer ${t.token}`, 401, 'instance_revoked');
  });

  it('organization suspended (403), and working again once it is active', async () => {
    const t = await mintToken(admin.token, key.id);
    await expectWorks(t.token);
    const platformAdmin = await createUser({ role: 'admin' });
    const setStatus = (status: string) =>
      api('/admin/organizations', { method: 'PUT', token: platformAdmin.token, body: { id: org.id, status } });
    expect((await setStatus('suspended')).status).toBe(200);
    try {
      await expectRefused(`Bearer ${t.token}`, 403, 'organization_suspended');
    } finally {
      expect((await setStatus('active')).status).toBe(200);
    }
    await expectWorks(t.token);
  });
});
