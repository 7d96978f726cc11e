/** Organizations, profile and membership through the account API. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { organizations, subscriptions, users } from '../../server/db/schema';
import { api, createOrg, createUser, joinByInvitation, unique } from '../helpers';
import { auditRows, later } from '../account-admin-fixtures';

const slug = () => unique('org').toLowerCase();

describe('organizations', () => {
  it('a user without organization creates one, becomes its admin, and gets a free subscription', async () => {
    const user = await createUser({ name: 'Founder' });
    expect((await api('/account/organizations', { token: user.token })).body).toEqual({ organization: null });
    const s = slug();
    const res = await api('/account/organizations', {
      method: 'POST',
      token: user.token,
      body: { name: '  Acme Inc ', slug: s },
    });
    expect(res.status).toBe(200);
    expect(res.body.organization).toEqual({
      id: expect.any(String),
      name: 'Acme Inc',
      slug: s,
      status: 'active',
      tier: 'free',
      role: 'admin',
      created_at: expect.any(String),
    });
    const orgId = res.body.organization.id;

    const db = await getDb();
    expect(
      await db.select({ plan: subscriptions.plan }).from(subscriptions).where(eq(subscriptions.orgId, orgId)),
    ).toEqual([{ plan: 'free' }]);
    const [u] = await db.select().from(users).where(eq(users.id, user.id));
    expect(u).toMatchObject({ orgId, orgRole: 'admin' });
    expect(u!.orgJoinedAt).toBeInstanceOf(Date);

    expect((await api('/account/organizations', { token: user.token })).body.organization).toMatchObject({
      id: orgId,
      role: 'admin',
    });
    const profile = await api('/account/profile', { token: user.token });
    expect(profile.body).toEqual({
      profile: {
        id: user.id,
        email: user.email,
        name: 'Founder',
        role: 'user',
        organization: { id: orgId, name: 'Acme Inc', slug: s, tier: 'free', status: 'active', role: 'admin' },
      },
    });
    // The founder can manage keys right away.
    expect(
      (await api('/account/api-keys', { method: 'POST', token: user.token, body: { name: 'first' } })).status,
    ).toBe(200);
    expect(
      (await auditRows()).some(
        (r) => r.action === 'organization.create' && r.targetId === orgId && r.actorId === user.id,
      ),
    ).toBe(true);
  });

  it('slug taken → 409; caller already in an organization → 409; nothing is written', async () => {
    const s = slug();
    const first = await createUser();
    expect(
      (await api('/account/organizations', { method: 'POST', token: first.token, body: { name: 'One', slug: s } }))
        .status,
    ).toBe(200);
    const second = await createUser();
    const db = await getDb();
    const before = (await db.select().from(organizations)).length;
    const taken = await api('/account/organizations', {
      method: 'POST',
      token: second.token,
      body: { name: 'Two', slug: s },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toMatch(/slug/);
    const again = await api('/account/organizations', {
      method: 'POST',
      token: first.token,
      body: { name: 'Again', slug: slug() },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already belong/);
    expect((await db.select().from(organizations)).length).toBe(before);
    expect((await db.select().from(subscriptions)).length).toBe(before);
    expect((await api('/account/organizations', { token: second.token })).body.organization).toBeNull();
  });

  it('slug rules: lowercase letters, digits and hyphens, 3 to 63 characters', async () => {
    const user = await createUser();
    for (const bad of ['ab', 'x'.repeat(64), 'Upper-case', 'under_score', 'sp ace', 'dot.ted', 'émoji']) {
      const res = await api('/account/organizations', {
        method: 'POST',
        token: user.token,
        body: { name: 'N', slug: bad },
      });
      expect(res.status, bad).toBe(400);
      expect(res.body.message, bad).toMatch(/slug/);
    }
    for (const good of ['abc', 'a-1', '9'.repeat(63)]) {
      const other = await createUser();
      const res = await api('/account/organizations', {
        method: 'POST',
        token: other.token,
        body: { name: 'N', slug: `${good}`.slice(0, 63) },
      });
      expect(res.status, good).toBe(200);
    }
  });

  it('two concurrent creations by one user: exactly one organization', async () => {
    const user = await createUser();
    const results = await Promise.all(
      [slug(), slug()].map((s) =>
        api('/account/organizations', { method: 'POST', token: user.token, body: { name: s, slug: s } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const db = await getDb();
    const [u] = await db.select().from(users).where(eq(users.id, user.id));
    const created = results.find((r) => r.status === 200)!.body.organization.id;
    expect(u!.orgId).toBe(created);
  });
});

describe('profile', () => {
  it('PUT updates the name (1 to 100 characters, trimmed)', async () => {
    const user = await createUser({ name: 'Old' });
    const res = await api('/account/profile', { method: 'PUT', token: user.token, body: { name: '  New Name ' } });
    expect(res.status).toBe(200);
    expect(res.body.profile).toMatchObject({ id: user.id, name: 'New Name', organization: null });
    expect((await api('/account/profile', { token: user.token })).body.profile.name).toBe('New Name');
    expect(
      (await api('/account/profile', { method: 'PUT', token: user.token, body: { name: 'x'.repeat(100) } })).status,
    ).toBe(200);
    for (const bad of ['', '   ', 'x'.repeat(101)]) {
      const r = await api('/account/profile', { method: 'PUT', token: user.token, body: { name: bad } });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/name/);
    }
    expect((await api('/account/profile', { token: user.token })).body.profile.name).toBe('x'.repeat(100));
  });
});

describe('members', () => {
  async function setup() {
    const admin = await createUser();
    const member = await createUser();
    const org = await createOrg({ admin, members: [member] });
    return { admin, member, org };
  }

  it('lists members for any member', async () => {
    const { admin, member } = await setup();
    const res = await api('/account/members', { token: member.token });
    expect(res.status).toBe(200);
    expect(res.body.members).toHaveLength(2);
    expect(res.body.members).toContainEqual({
      user_id: admin.id,
      email: admin.email,
      name: admin.name,
      role: 'admin',
      joined_at: expect.any(String),
    });
    expect(res.body.members).toContainEqual(expect.objectContaining({ user_id: member.id, role: 'member' }));
  });

  it('changes roles; the last admin cannot be demoted or removed (409)', async () => {
    const { admin, member } = await setup();
    const demote = await api('/account/members', {
      method: 'PUT',
      token: admin.token,
      body: { user_id: admin.id, role: 'member' },
    });
    expect(demote.status).toBe(409);
    expect(demote.body.message).toMatch(/last admin/);
    const remove = await api('/account/members', { method: 'DELETE', token: admin.token, body: { user_id: admin.id } });
    expect(remove.status).toBe(409);

    const promote = await api('/account/members', {
      method: 'PUT',
      token: admin.token,
      body: { user_id: member.id, role: 'admin' },
    });
    expect(promote.status).toBe(200);
    expect(promote.body.member).toMatchObject({ user_id: member.id, role: 'admin' });
    // The promoted member may now manage keys; the role is read on every call.
    expect((await api('/account/api-keys', { method: 'POST', token: member.token, body: { name: 'k' } })).status).toBe(
      200,
    );
    // Now the first admin may step down, and the other is the last one.
    expect(
      (
        await api('/account/members', {
          method: 'PUT',
          token: admin.token,
          body: { user_id: admin.id, role: 'member' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api('/account/invitations', {
          method: 'POST',
          token: admin.token,
          body: { email: 'x@example.test', role: 'member' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await api('/account/members', { method: 'DELETE', token: member.token, body: { user_id: member.id } })).status,
    ).toBe(409);
  });

  it('two admins demoting each other at once: one of them stays admin', async () => {
    const a = await createUser();
    const b = await createUser();
    const org = await createOrg({ admin: a });
    const db = await getDb();
    await db.update(users).set({ orgId: org.id, orgRole: 'admin' }).where(eq(users.id, b.id));
    const results = await Promise.all([
      api('/account/members', { method: 'PUT', token: a.token, body: { user_id: b.id, role: 'member' } }),
      api('/account/members', { method: 'PUT', token: b.token, body: { user_id: a.id, role: 'member' } }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    // Serialized on the organization row: the second sees it would remove the last admin (409) or is no longer admin (403).
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const admins = await db.select().from(users).where(eq(users.orgId, org.id));
    expect(admins.filter((u) => u.orgRole === 'admin')).toHaveLength(1);
  });

  it('removal ends membership at once; re-joining starts a new membership (orgJoinedAt moves on)', async () => {
    const { admin, member, org } = await setup();
    const db = await getDb();
    const [before] = await db.select().from(users).where(eq(users.id, member.id));
    expect((await api('/account/api-keys', { token: member.token })).status).toBe(200);

    const res = await api('/account/members', { method: 'DELETE', token: admin.token, body: { user_id: member.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removed: { user_id: member.id } });
    const [after] = await db.select().from(users).where(eq(users.id, member.id));
    expect(after).toMatchObject({ orgId: null, orgRole: null, orgJoinedAt: null });
    expect((await api('/account/api-keys', { token: member.token })).status).toBe(403);
    expect((await api('/account/organizations', { token: member.token })).body.organization).toBeNull();

    await later();
    await joinByInvitation(admin, member);
    const [readded] = await db.select().from(users).where(eq(users.id, member.id));
    expect(readded!.orgId).toBe(org.id);
    expect(readded!.orgJoinedAt!.getTime()).toBeGreaterThan(before!.orgJoinedAt!.getTime());

    const actions = (await auditRows()).filter((r) => r.targetId === member.id).map((r) => r.action);
    expect(actions).toEqual(['member.remove', 'member.add']);
  });

  it('unknown user ids are 404 and change nothing', async () => {
    const { admin } = await setup();
    const id = crypto.randomUUID();
    expect(
      (await api('/account/members', { method: 'PUT', token: admin.token, body: { user_id: id, role: 'admin' } }))
        .status,
    ).toBe(404);
    expect(
      (await api('/account/members', { method: 'DELETE', token: admin.token, body: { user_id: id } })).status,
    ).toBe(404);
    const outsider = await createUser();
    expect(
      (await api('/account/members', { method: 'DELETE', token: admin.token, body: { user_id: outsider.id } })).status,
    ).toBe(404);
  });
});
