/** Admin users, organizations, stats and the audit log. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { personalAccessTokens, subscriptions, users } from '../../server/db/schema';
import { api, createCategory, createKey, createOrg, createTemplate, createUser, unique } from '../helpers';
import { auditRows, insertPat } from '../account-admin-fixtures';

describe('users', () => {
  it('lists users with organization info, paginated and searchable by email', async () => {
    const admin = await createUser({ role: 'admin' });
    const tag = unique('findme').toLowerCase();
    const orgAdmin = await createUser({ email: `${tag}-a@example.test` });
    const loner = await createUser({ email: `${tag}-b@example.test` });
    const org = await createOrg({ admin: orgAdmin });
    const res = await api(`/admin/users?search=${tag.toUpperCase()}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 50, total: 2, totalPages: 1 });
    expect(res.body.users).toEqual([
      {
        id: orgAdmin.id,
        email: orgAdmin.email,
        name: orgAdmin.name,
        role: 'user',
        created_at: expect.any(String),
        organization: { id: org.id, name: org.name, slug: org.slug, role: 'admin', status: 'active', tier: 'free' },
      },
      {
        id: loner.id,
        email: loner.email,
        name: loner.name,
        role: 'user',
        created_at: expect.any(String),
        organization: null,
      },
    ]);
    const page2 = await api(`/admin/users?search=${tag}&limit=1&page=2`, { token: admin.token });
    expect(page2.body.users.map((u: any) => u.id)).toEqual([loner.id]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    // LIKE wildcards in the search are literal.
    expect((await api('/admin/users?search=%25', { token: admin.token })).body.users).toEqual([]);
    expect(
      (await api(`/admin/users?org_id=${org.id}`, { token: admin.token })).body.users.map((u: any) => u.id),
    ).toEqual([orgAdmin.id]);
  });

  it('admins set user and admin roles; only a superadmin grants or revokes superadmin', async () => {
    const admin = await createUser({ role: 'admin' });
    const superadmin = await createUser({ role: 'superadmin' });
    await createUser({ role: 'superadmin' }); // not the last one
    const target = await createUser();

    const promoted = await api('/admin/users', {
      method: 'PUT',
      token: admin.token,
      body: { id: target.id, role: 'admin' },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body.user).toMatchObject({ id: target.id, role: 'admin' });
    expect((await api('/admin/stats', { token: target.token })).status).toBe(200);

    const grantSuper = await api('/admin/users', {
      method: 'PUT',
      token: admin.token,
      body: { id: target.id, role: 'superadmin' },
    });
    expect(grantSuper.status).toBe(403);
    expect(grantSuper.body.message).toMatch(/superadmin/);
    const revokeSuper = await api('/admin/users', {
      method: 'PUT',
      token: admin.token,
      body: { id: superadmin.id, role: 'user' },
    });
    expect(revokeSuper.status).toBe(403);
    expect(
      (await api('/admin/users', { method: 'DELETE', token: admin.token, body: { id: superadmin.id } })).status,
    ).toBe(403);

    expect(
      (
        await api('/admin/users', {
          method: 'PUT',
          token: superadmin.token,
          body: { id: target.id, role: 'superadmin' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await api('/admin/users', { method: 'PUT', token: superadmin.token, body: { id: target.id, role: 'user' } }))
        .status,
    ).toBe(200);
    const db = await getDb();
    expect((await db.select().from(users).where(eq(users.id, target.id)))[0]!.role).toBe('user');
    expect(
      (
        await api('/admin/users', {
          method: 'PUT',
          token: admin.token,
          body: { id: crypto.randomUUID(), role: 'user' },
        })
      ).status,
    ).toBe(404);
  });

  it('the last superadmin cannot be demoted or deleted (409)', async () => {
    const db = await getDb();
    // Start from a database where this is the only superadmin.
    await db.update(users).set({ role: 'admin' }).where(eq(users.role, 'superadmin'));
    const only = await createUser({ role: 'superadmin' });
    const demote = await api('/admin/users', {
      method: 'PUT',
      token: only.token,
      body: { id: only.id, role: 'admin' },
    });
    expect(demote.status).toBe(409);
    expect(demote.body.message).toMatch(/last superadmin/);
    expect((await api('/admin/users', { method: 'DELETE', token: only.token, body: { id: only.id } })).status).toBe(
      409,
    );
    const second = await createUser();
    expect(
      (await api('/admin/users', { method: 'PUT', token: only.token, body: { id: second.id, role: 'superadmin' } }))
        .status,
    ).toBe(200);
    expect(
      (await api('/admin/users', { method: 'PUT', token: second.token, body: { id: only.id, role: 'admin' } })).status,
    ).toBe(200);
    expect(
      (await api('/admin/users', { method: 'PUT', token: second.token, body: { id: second.id, role: 'user' } })).status,
    ).toBe(409);
  });

  it('concurrent demotions of the two last superadmins leave one', async () => {
    const db = await getDb();
    await db.update(users).set({ role: 'admin' }).where(eq(users.role, 'superadmin'));
    const a = await createUser({ role: 'superadmin' });
    const b = await createUser({ role: 'superadmin' });
    const results = await Promise.all([
      api('/admin/users', { method: 'PUT', token: a.token, body: { id: b.id, role: 'admin' } }),
      api('/admin/users', { method: 'PUT', token: b.token, body: { id: a.id, role: 'admin' } }),
    ]);
    expect(results.map((r) => r.status).sort()[0]).toBe(200);
    expect((await db.select().from(users).where(eq(users.role, 'superadmin'))).length).toBe(1);
  });

  it('deleting a user removes membership and personal access tokens; their JWT is refused at once', async () => {
    const admin = await createUser({ role: 'admin' });
    const orgAdmin = await createUser();
    const member = await createUser();
    const org = await createOrg({ admin: orgAdmin, members: [member] });
    const key = await createKey(org.id);
    await insertPat(member, org.id, key.id);
    const db = await getDb();
    expect(await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, member.id))).toHaveLength(
      1,
    );

    const res = await api('/admin/users', { method: 'DELETE', token: admin.token, body: { id: member.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: { id: member.id, email: member.email } });
    expect(await db.select().from(users).where(eq(users.id, member.id))).toHaveLength(0);
    expect(await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, member.id))).toHaveLength(
      0,
    );
    expect((await api('/account/profile', { token: member.token })).status).toBe(401);
    expect((await api('/account/members', { token: orgAdmin.token })).body.members.map((m: any) => m.user_id)).toEqual([
      orgAdmin.id,
    ]);
    // The organization's instance key is nobody's personal credential: it keeps working.
    expect((await api('/catalog/templates', { token: key.secret })).status).toBe(200);
    expect((await api('/admin/users', { method: 'DELETE', token: admin.token, body: { id: member.id } })).status).toBe(
      404,
    );
    const audit = (await auditRows()).find((r) => r.action === 'user.delete' && r.targetId === member.id);
    expect(audit).toMatchObject({
      actorId: admin.id,
      orgId: org.id,
      details: expect.objectContaining({ tokens_deleted: 1 }),
    });
  });

  it('the last admin of an organization with other members cannot be deleted (409); a sole member can', async () => {
    const admin = await createUser({ role: 'admin' });
    const orgAdmin = await createUser();
    const member = await createUser();
    await createOrg({ admin: orgAdmin, members: [member] });
    const res = await api('/admin/users', { method: 'DELETE', token: admin.token, body: { id: orgAdmin.id } });
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/last admin/);
    const solo = await createUser();
    await createOrg({ admin: solo });
    expect((await api('/admin/users', { method: 'DELETE', token: admin.token, body: { id: solo.id } })).status).toBe(
      200,
    );
  });
});

describe('organizations', () => {
  it('lists with member_count, api_key_count (active keys), status and tier; filters', async () => {
    const admin = await createUser({ role: 'admin' });
    const a = await createUser();
    const b = await createUser();
    const name = unique('Counted Org');
    const org = await createOrg({ name, admin: a, members: [b] });
    await createKey(org.id);
    const revoked = await createKey(org.id);
    await api('/admin/api-keys', { method: 'DELETE', token: admin.token, body: { id: revoked.id } });
    const res = await api(`/admin/organizations?search=${encodeURIComponent(name)}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.organizations).toEqual([
      {
        id: org.id,
        name,
        slug: org.slug,
        status: 'active',
        tier: 'free',
        member_count: 2,
        api_key_count: 1,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    expect(res.body.pagination.total).toBe(1);
  });

  it('updates status and/or tier; the subscription plan follows the tier; validation', async () => {
    const admin = await createUser({ role: 'admin' });
    const org = await createOrg();
    const res = await api('/admin/organizations', {
      method: 'PUT',
      token: admin.token,
      body: { id: org.id, tier: 'enterprise' },
    });
    expect(res.status).toBe(200);
    expect(res.body.organization).toMatchObject({ id: org.id, tier: 'enterprise', status: 'active' });
    const db = await getDb();
    expect((await db.select().from(subscriptions).where(eq(subscriptions.orgId, org.id)))[0]!.plan).toBe('enterprise');
    expect(
      (await api(`/admin/organizations?tier=enterprise`, { token: admin.token })).body.organizations.map(
        (o: any) => o.id,
      ),
    ).toContain(org.id);

    const both = await api('/admin/organizations', {
      method: 'PUT',
      token: admin.token,
      body: { id: org.id, status: 'suspended', tier: 'pro' },
    });
    expect(both.body.organization).toMatchObject({ status: 'suspended', tier: 'pro' });
    expect(
      (await api(`/admin/organizations?status=suspended`, { token: admin.token })).body.organizations.map(
        (o: any) => o.id,
      ),
    ).toContain(org.id);

    for (const body of [
      { id: org.id },
      { id: org.id, status: 'frozen' },
      { id: org.id, tier: 'gold' },
      { id: 'nope', tier: 'pro' },
    ]) {
      const r = await api('/admin/organizations', { method: 'PUT', token: admin.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect(
      (
        await api('/admin/organizations', {
          method: 'PUT',
          token: admin.token,
          body: { id: crypto.randomUUID(), tier: 'pro' },
        })
      ).status,
    ).toBe(404);
    const audit = (await auditRows()).filter((r) => r.action === 'organization.update' && r.targetId === org.id);
    expect(audit.map((r) => r.details)).toEqual([
      { changes: { tier: { from: 'free', to: 'enterprise' } } },
      { changes: { status: { from: 'active', to: 'suspended' }, tier: { from: 'enterprise', to: 'pro' } } },
    ]);
  });
});

describe('stats', () => {
  it('counts users, organizations, active keys, templates and categories', async () => {
    const admin = await createUser({ role: 'admin' });
    const before = (await api('/admin/stats', { token: admin.token })).body;
    expect(Object.keys(before).sort()).toEqual(['apiKeys', 'categories', 'organizations', 'templates', 'users']);
    const org = await createOrg();
    await createUser();
    await createKey(org.id);
    const revoked = await createKey(org.id);
    await api('/admin/api-keys', { method: 'DELETE', token: admin.token, body: { id: revoked.id } });
    const cat = await createCategory();
    await createTemplate({ categoryId: cat.id });
    const after = (await api('/admin/stats', { token: admin.token })).body;
    expect(after).toEqual({
      users: before.users + 1,
      organizations: before.organizations + 1,
      apiKeys: before.apiKeys + 1,
      templates: before.templates + 1,
      categories: before.categories + 1,
    });
  });
});

describe('audit log', () => {
  it('records every admin write and key/member change, filterable by actor and target, newest first', async () => {
    const admin = await createUser({ role: 'admin' });
    const orgAdmin = await createUser();
    const org = await createOrg({ admin: orgAdmin });
    const created = await api('/account/api-keys', {
      method: 'POST',
      token: orgAdmin.token,
      body: { name: 'audited' },
    });
    const keyId = created.body.apiKey.id;
    await api('/account/api-keys', { method: 'PUT', token: orgAdmin.token, body: { id: keyId } });
    await api('/admin/api-keys', { method: 'DELETE', token: admin.token, body: { id: keyId } });

    const byTarget = await api(`/admin/audit-log?target_id=${keyId}`, { token: admin.token });
    expect(byTarget.status).toBe(200);
    expect(byTarget.body.entries.map((e: any) => [e.action, e.actor_id])).toEqual([
      ['api_key.revoke', admin.id],
      ['api_key.reissue', orgAdmin.id],
      ['api_key.create', orgAdmin.id],
    ]);
    expect(byTarget.body.entries[0]).toMatchObject({
      actor_type: 'user',
      target_type: 'api_key',
      org_id: org.id,
      created_at: expect.any(String),
    });
    const byActor = await api(`/admin/audit-log?actor_id=${orgAdmin.id}&target_type=api_key`, { token: admin.token });
    expect(byActor.body.entries).toHaveLength(2);
    expect(byActor.body.pagination.total).toBe(2);
    const byAction = await api(`/admin/audit-log?action=api_key.revoke&org_id=${org.id}`, { token: admin.token });
    expect(byAction.body.entries).toHaveLength(1);
    const future = await api(
      `/admin/audit-log?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      { token: admin.token },
    );
    expect(future.body.entries).toEqual([]);
    expect((await api('/admin/audit-log?since=yesterday', { token: admin.token })).status).toBe(400);
  });
});
