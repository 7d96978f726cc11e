/**
 * User management: the last-admin rule (also under concurrent changes), partial updates, duplicate
 * emails, OIDC provisioning (default role, admin groups re-read at sign-in, deleted people blocked), no
 * password hash in any answer.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../src/db/schema';
import { startOidcProvider, type OidcFixture } from './fixtures/oidc';
import { ADMIN_PASSWORD, freshDatabase, localUser, startCore, type TestCore } from './helpers';

const TEMP = { username: 'root', password: 'temporary admin password' };
let t: TestCore;
let oidc: OidcFixture;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let temp: string;

beforeAll(async () => {
  oidc = await startOidcProvider();
  db = await freshDatabase();
  t = await startCore(
    {
      temporaryAdmin: TEMP,
      oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience: oidc.audience, scopes: 'openid' },
      oidcAdminGroups: ['ops'],
    },
    db,
  );
  temp = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token;
});
afterAll(async () => {
  await t?.stop();
  await oidc?.close();
  await db?.drop();
});

const admins = async () => (await t.core.db.select().from(users).where(eq(users.role, 'admin'))).length;

describe('the last admin', () => {
  it('cannot be deleted or demoted, whoever asks (the temporary admin does not count)', async () => {
    const only = await localUser(t, temp, 'admin');
    expect(await admins()).toBe(1);
    const del = await t.call('DELETE', `/api/v1/users/${only.id}`, { token: temp });
    expect(del.status).toBe(409);
    expect(del.body.message).toMatch(/last admin/);
    expect(
      (await t.call('PUT', `/api/v1/users/${only.id}`, { token: only.token, body: { role: 'readonly' } })).status,
    ).toBe(409);
    // Other changes to the last admin are fine.
    expect(
      (await t.call('PUT', `/api/v1/users/${only.id}`, { token: temp, body: { name: 'Only Admin', role: 'admin' } }))
        .status,
    ).toBe(200);
    expect(await admins()).toBe(1);
  });

  it('holds when two admins are removed at the same time', async () => {
    await localUser(t, temp, 'admin');
    await localUser(t, temp, 'admin');
    const all = (await t.core.db.select().from(users).where(eq(users.role, 'admin'))).map((u) => u.id);
    expect(all.length).toBe(3);
    // Everyone tries to remove every admin at once: one must remain.
    const results = await Promise.all(
      all.flatMap((id, i) => [
        t.call('DELETE', `/api/v1/users/${id}`, { token: temp }),
        t.call('PUT', `/api/v1/users/${all[(i + 1) % all.length]}`, { token: temp, body: { role: 'readonly' } }),
      ]),
    );
    // The unexpected answers themselves, so that a failure shows them.
    expect(results.filter((r) => ![200, 204, 404, 409].includes(r.status)).map((r) => [r.status, r.body])).toEqual([]);
    expect(results.some((r) => r.status === 409)).toBe(true);
    expect(await admins()).toBe(1);
  });

  it('answers a change to a person deleted at the same moment with 404, never a 500', async () => {
    const unexpected: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      const email = `race-${i}-${randomBytes(3).toString('hex')}@example.test`;
      const created = await t.call('POST', '/api/v1/users', {
        token: temp,
        body: { email, password: ADMIN_PASSWORD, role: 'admin' },
      });
      expect(created.status).toBe(201);
      // A demotion (under the last-admin lock) or a rename (no lock), sent with the delete.
      const [put, del] = await Promise.all([
        t.call('PUT', `/api/v1/users/${created.body.id}`, {
          token: temp,
          body: i % 2 === 0 ? { role: 'readonly' } : { name: 'Renamed' },
        }),
        t.call('DELETE', `/api/v1/users/${created.body.id}`, { token: temp }),
      ]);
      if (![200, 404].includes(put.status)) unexpected.push(['PUT', put.status, put.body]);
      if (del.status !== 204) unexpected.push(['DELETE', del.status, del.body]);
    }
    expect(unexpected).toEqual([]);
    expect(await admins()).toBe(1);
  });

  it('OIDC admins count', async () => {
    const token = await oidc.mint({ subject: 'oidc-ops', email: 'ops@example.test', groups: ['ops'] });
    expect((await t.call('GET', '/api/v1/auth/me', { token })).body.role).toBe('admin');
    expect(await admins()).toBe(2);
    const local = (await t.core.db.select().from(users).where(eq(users.role, 'admin'))).find(
      (u) => u.kind === 'local',
    )!;
    expect((await t.call('DELETE', `/api/v1/users/${local.id}`, { token: temp })).status).toBe(204);
    const oidcUser = (await t.core.db.select().from(users).where(eq(users.role, 'admin')))[0]!;
    expect(oidcUser.kind).toBe('oidc');
    expect(
      (await t.call('PUT', `/api/v1/users/${oidcUser.id}`, { token: temp, body: { role: 'readonly' } })).status,
    ).toBe(409);
  });
});

describe('users API', () => {
  it('creates, updates partially and never shows a password hash', async () => {
    const created = await t.call('POST', '/api/v1/users', {
      token: temp,
      body: { email: 'new@example.test', password: ADMIN_PASSWORD, role: 'readonly', name: 'New' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      email: 'new@example.test',
      name: 'New',
      role: 'readonly',
      kind: 'local',
      created_at: expect.any(String),
    });
    const renamed = await t.call('PUT', `/api/v1/users/${created.body.id}`, { token: temp, body: { name: 'Renamed' } });
    expect(renamed.body).toMatchObject({ email: 'new@example.test', name: 'Renamed', role: 'readonly' });
    const newPassword = 'a brand new password';
    expect(
      (await t.call('PUT', `/api/v1/users/${created.body.id}`, { token: temp, body: { password: newPassword } }))
        .status,
    ).toBe(200);
    expect(
      (await t.call('POST', '/api/v1/auth/login', { body: { username: 'new@example.test', password: newPassword } }))
        .status,
    ).toBe(200);
    const list = await t.call('GET', '/api/v1/users?limit=100', { token: temp });
    expect(JSON.stringify(list.body)).not.toMatch(/argon2|password/i);
  });

  it('refuses a duplicate email (409), bad passwords and unknown fields (400), and missing ids (404)', async () => {
    await localUser(t, temp, 'readonly', 'dup@example.test');
    const dup = await t.call('POST', '/api/v1/users', {
      token: temp,
      body: { email: 'DUP@example.test', password: ADMIN_PASSWORD, role: 'readonly' },
    });
    expect(dup.status).toBe(409);
    const other = await localUser(t, temp, 'readonly');
    expect(
      (await t.call('PUT', `/api/v1/users/${other.id}`, { token: temp, body: { email: 'dup@example.test' } })).status,
    ).toBe(409);
    const short = await t.call('POST', '/api/v1/users', {
      token: temp,
      body: { email: 's@example.test', password: 'short', role: 'readonly' },
    });
    expect(short.status).toBe(400);
    expect(short.body.message).toMatch(/^Invalid input: password:/);
    const long = await t.call('POST', '/api/v1/users', {
      token: temp,
      body: { email: 'l@example.test', password: 'x'.repeat(257), role: 'readonly' },
    });
    expect(long.status).toBe(400);
    const extra = await t.call('PUT', `/api/v1/users/${other.id}`, {
      token: temp,
      body: { role: 'readonly', is_superuser: true },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toBe('Invalid input: unknown field: is_superuser');
    const viewer = await t.call('PUT', `/api/v1/users/${other.id}`, { token: temp, body: { role: 'viewer' } });
    expect(viewer.status).toBe(400);
    expect(viewer.body.message).toMatch(/^Invalid input: role: .*viewer.*admin and readonly/);
    expect(
      (await t.call('PUT', '/api/v1/users/00000000-0000-0000-0000-000000000000', { token: temp, body: { name: 'x' } }))
        .status,
    ).toBe(404);
    expect((await t.call('DELETE', '/api/v1/users/nope', { token: temp })).status).toBe(404);
    const bad = await t.call('POST', '/api/v1/users', {
      token: temp,
      body: { email: 'not-an-email', password: ADMIN_PASSWORD, role: 'readonly' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Invalid input: email:/);
  });
});

describe('OIDC provisioning', () => {
  it('admin groups are re-read at each sign-in: they win over a role set by hand; leaving the group demotes', async () => {
    const person = { subject: 'returning', email: 'returning@example.test', groups: ['ops'] };
    const inGroup = await oidc.mint(person);
    const me = await t.call('GET', '/api/v1/auth/me', { token: inGroup });
    expect(me.body.role).toBe('admin');
    const id = me.body.user.id;
    await localUser(t, temp, 'admin'); // keep another admin around
    // Demoted by hand in Core: while the provider still says "ops", the next token brings admin back.
    expect((await t.call('PUT', `/api/v1/users/${id}`, { token: temp, body: { role: 'readonly' } })).status).toBe(200);
    expect((await t.call('GET', '/api/v1/auth/me', { token: inGroup })).body.role).toBe('admin');
    // An OIDC user's email and password belong to the provider.
    expect(
      (await t.call('PUT', `/api/v1/users/${id}`, { token: temp, body: { password: 'a long new password' } })).status,
    ).toBe(400);
    // Leaving the group at the provider demotes at the next sign-in.
    const left = await oidc.mint({ ...person, groups: [] });
    const demoted = await t.call('GET', '/api/v1/auth/me', { token: left });
    expect(demoted.body).toMatchObject({ role: 'readonly', user: { id } });
  });

  it('a deleted OIDC person is blocked, not provisioned again, until an admin re-admits them', async () => {
    const person = { subject: 'removed', email: 'removed@example.test' };
    const first = await t.call('GET', '/api/v1/auth/me', { token: await oidc.mint(person) });
    expect(first.status).toBe(200);
    expect((await t.call('DELETE', `/api/v1/users/${first.body.user.id}`, { token: temp })).status).toBe(204);

    const refused = await t.call('GET', '/api/v1/auth/me', { token: await oidc.mint(person) });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(
      /removed@example\.test was removed from this Core instance by an admin; an admin can re-admit them/,
    );
    expect(
      (await t.call('GET', '/api/v1/users?limit=100', { token: temp })).body.users.map((u: any) => u.email),
    ).not.toContain('removed@example.test');

    const reader = await localUser(t, temp, 'readonly');
    const blocked = (await t.call('GET', '/api/v1/blocked-identities', { token: reader.token })).body.blocked;
    const entry = blocked.find((b: any) => b.email === 'removed@example.test');
    expect(entry).toMatchObject({ subject: 'removed', blocked_by: TEMP.username });
    expect((await t.call('DELETE', `/api/v1/blocked-identities/${entry.id}`, { token: reader.token })).status).toBe(
      403,
    );
    expect((await t.call('DELETE', `/api/v1/blocked-identities/${entry.id}`, { token: temp })).status).toBe(204);
    const again = await t.call('GET', '/api/v1/auth/me', { token: await oidc.mint(person) });
    expect(again.status).toBe(200);
    expect(again.body.user.id).not.toBe(first.body.user.id);
  });

  it('keys people by (issuer, subject): a new subject with a known email is another user', async () => {
    const a = await oidc.mint({ subject: 'sub-a', email: 'same@example.test' });
    const b = await oidc.mint({ subject: 'sub-b', email: 'same@example.test' });
    const ida = (await t.call('GET', '/api/v1/auth/me', { token: a })).body.user.id;
    const idb = (await t.call('GET', '/api/v1/auth/me', { token: b })).body.user.id;
    expect(ida).not.toBe(idb);
  });
});
