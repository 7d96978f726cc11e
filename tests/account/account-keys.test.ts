/** Instance keys through the account and admin APIs: lifecycle end to end through the catalog, tenant isolation. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { instanceKeys } from '../../server/db/schema';
import { hashSecret } from '@shared/tokens';
import { api, createCategory, createKey, createOrg, createTemplate, createUser } from '../helpers';
import { auditRows } from '../account-admin-fixtures';

async function orgWithAdmin() {
  const admin = await createUser();
  const member = await createUser();
  const org = await createOrg({ admin, members: [member] });
  return { admin, member, org };
}

describe('instance key lifecycle through the catalog', () => {
  it('create → works; re-issue → old 401, new 200, same id; revoke → 401', async () => {
    const cat = await createCategory();
    await createTemplate({ categoryId: cat.id, slug: 'lifecycle-tpl' });
    const { admin } = await orgWithAdmin();

    const created = await api('/account/api-keys', { method: 'POST', token: admin.token, body: { name: 'edge-1' } });
    expect(created.status).toBe(200);
    const { id, key, key_prefix, name, status } = created.body.apiKey;
    expect(name).toBe('edge-1');
    expect(status).toBe('active');
    expect(key).toMatch(/^svh_[0-9A-Za-z]{38}$/);
    expect(key.startsWith(key_prefix)).toBe(true);
    expect(key_prefix.length).toBeLessThan(key.length);

    let catalog = await api('/catalog/templates', { token: key });
    expect(catalog.status).toBe(200);
    expect(catalog.body.templates.map((t: any) => t.slug)).toContain('lifecycle-tpl');

    // Listing never shows the key or its hash. last_used_at is written in the background (fire-and-forget,
    // another pooled connection on PostgreSQL): wait for it rather than race it.
    let list = await api('/account/api-keys', { token: admin.token });
    for (let i = 0; i < 40 && list.body.apiKeys?.[0]?.last_used_at === null; i++) {
      await new Promise((r) => setTimeout(r, 50));
      list = await api('/account/api-keys', { token: admin.token });
    }
    expect(list.status).toBe(200);
    expect(list.body.apiKeys).toHaveLength(1);
    expect(list.body.apiKeys[0]).toEqual({
      id,
      name: 'edge-1',
      key_prefix,
      status: 'active',
      created_at: expect.any(String),
      last_used_at: expect.any(String),
    });
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(JSON.stringify(list.body)).not.toContain(hashSecret(key));

    const reissued = await api('/account/api-keys', { method: 'PUT', token: admin.token, body: { id } });
    expect(reissued.status).toBe(200);
    expect(reissued.body.apiKey.id).toBe(id);
    expect(reissued.body.apiKey.key).not.toBe(key);
    expect(reissued.body.apiKey.status).toBe('active');
    const newKey = reissued.body.apiKey.key;
    expect((await api('/catalog/templates', { token: key })).status).toBe(401);
    expect((await api('/catalog/templates', { token: newKey })).status).toBe(200);

    const revoked = await api('/account/api-keys', { method: 'DELETE', token: admin.token, body: { id } });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ apiKey: { id, status: 'revoked' } });
    catalog = await api('/catalog/templates', { token: newKey });
    expect(catalog.status).toBe(401);
    expect((await api('/account/api-keys', { token: admin.token })).body.apiKeys[0].status).toBe('revoked');

    // Revocation is final: re-issuing a revoked key is a conflict, and the key stays dead.
    const again = await api('/account/api-keys', { method: 'PUT', token: admin.token, body: { id } });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/revoked/);
    expect((await api('/catalog/templates', { token: newKey })).status).toBe(401);
  });

  it('revoke accepts ?id= as well as the JSON body, and is idempotent', async () => {
    const { admin, org } = await orgWithAdmin();
    const key = await createKey(org.id);
    const res = await api(`/account/api-keys?id=${key.id}`, { method: 'DELETE', token: admin.token });
    expect(res.status).toBe(200);
    expect((await api('/catalog/templates', { token: key.secret })).status).toBe(401);
    expect((await api(`/account/api-keys?id=${key.id}`, { method: 'DELETE', token: admin.token })).status).toBe(200);
  });

  it('a platform admin can revoke any key; it stops working at once and the org admin cannot revive it', async () => {
    const { admin, org } = await orgWithAdmin();
    const platformAdmin = await createUser({ role: 'admin' });
    const key = await createKey(org.id);
    expect((await api('/catalog/templates', { token: key.secret })).status).toBe(200);

    const listed = await api(`/admin/api-keys?org_id=${org.id}`, { token: platformAdmin.token });
    expect(listed.status).toBe(200);
    expect(listed.body.apiKeys).toEqual([
      expect.objectContaining({ id: key.id, org_id: org.id, org_name: org.name, status: 'active' }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(key.secret);
    expect(JSON.stringify(listed.body)).not.toContain(hashSecret(key.secret));

    const res = await api('/admin/api-keys', { method: 'DELETE', token: platformAdmin.token, body: { id: key.id } });
    expect(res.status).toBe(200);
    expect(res.body.apiKey).toEqual({ id: key.id, org_id: org.id, status: 'revoked' });
    expect((await api('/catalog/templates', { token: key.secret })).status).toBe(401);
    expect((await api('/account/api-keys', { method: 'PUT', token: admin.token, body: { id: key.id } })).status).toBe(
      409,
    );
    expect(
      (await api('/admin/api-keys?status=revoked', { token: platformAdmin.token })).body.apiKeys.map((k: any) => k.id),
    ).toContain(key.id);
    expect(
      (
        await api('/admin/api-keys', {
          method: 'DELETE',
          token: platformAdmin.token,
          body: { id: crypto.randomUUID() },
        })
      ).status,
    ).toBe(404);
  });

  it('members may list keys but not create, re-issue or revoke them', async () => {
    const { member, org } = await orgWithAdmin();
    const key = await createKey(org.id);
    expect((await api('/account/api-keys', { token: member.token })).body.apiKeys.map((k: any) => k.id)).toEqual([
      key.id,
    ]);
    for (const [method, body] of [
      ['POST', { name: 'x' }],
      ['PUT', { id: key.id }],
      ['DELETE', { id: key.id }],
    ] as const) {
      expect((await api('/account/api-keys', { method, token: member.token, body })).status).toBe(403);
    }
    expect((await api('/catalog/templates', { token: key.secret })).status).toBe(200);
  });

  it('a suspended organization’s keys are refused (403) until it is active again', async () => {
    const { org } = await orgWithAdmin();
    const platformAdmin = await createUser({ role: 'admin' });
    const key = await createKey(org.id);
    expect((await api('/catalog/templates', { token: key.secret })).status).toBe(200);
    const suspended = await api('/admin/organizations', {
      method: 'PUT',
      token: platformAdmin.token,
      body: { id: org.id, status: 'suspended' },
    });
    expect(suspended.status).toBe(200);
    expect(suspended.body.organization).toMatchObject({ id: org.id, status: 'suspended', tier: 'free' });
    expect((await api('/catalog/templates', { token: key.secret })).status).toBe(403);
    await api('/admin/organizations', {
      method: 'PUT',
      token: platformAdmin.token,
      body: { id: org.id, status: 'active' },
    });
    expect((await api('/catalog/templates', { token: key.secret })).status).toBe(200);
  });
});

describe('tenant isolation', () => {
  it("org A's admin cannot read, re-issue or revoke org B's keys (404, nothing changes)", async () => {
    const a = await orgWithAdmin();
    const b = await orgWithAdmin();
    const keyB = await createKey(b.org.id);
    const keyA = await createKey(a.org.id);

    const listA = await api('/account/api-keys', { token: a.admin.token });
    expect(listA.body.apiKeys.map((k: any) => k.id)).toEqual([keyA.id]);

    const auditBefore = (await auditRows()).length;
    const reissue = await api('/account/api-keys', { method: 'PUT', token: a.admin.token, body: { id: keyB.id } });
    expect(reissue.status).toBe(404);
    expect(reissue.body.message).not.toContain(b.org.id);
    const revoke = await api('/account/api-keys', { method: 'DELETE', token: a.admin.token, body: { id: keyB.id } });
    expect(revoke.status).toBe(404);
    // Same answer as for an id that exists nowhere.
    const unknown = await api('/account/api-keys', {
      method: 'DELETE',
      token: a.admin.token,
      body: { id: crypto.randomUUID() },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe(revoke.body.message);

    const db = await getDb();
    const [row] = await db.select().from(instanceKeys).where(eq(instanceKeys.id, keyB.id));
    expect(row).toMatchObject({ status: 'active', keyHash: hashSecret(keyB.secret), reissuedAt: null });
    expect((await api('/catalog/templates', { token: keyB.secret })).status).toBe(200);
    expect((await auditRows()).length).toBe(auditBefore);
  });

  it("org A's admin cannot see, change or remove org B's members (404, nothing changes)", async () => {
    const a = await orgWithAdmin();
    const b = await orgWithAdmin();
    const members = await api('/account/members', { token: a.admin.token });
    expect(members.body.members.map((m: any) => m.user_id).sort()).toEqual([a.admin.id, a.member.id].sort());

    for (const target of [b.member.id, b.admin.id]) {
      expect(
        (
          await api('/account/members', {
            method: 'PUT',
            token: a.admin.token,
            body: { user_id: target, role: 'admin' },
          })
        ).status,
      ).toBe(404);
      expect(
        (await api('/account/members', { method: 'DELETE', token: a.admin.token, body: { user_id: target } })).status,
      ).toBe(404);
    }
    const listB = await api('/account/members', { token: b.admin.token });
    expect(listB.body.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: b.member.id, role: 'member' }),
        expect.objectContaining({ user_id: b.admin.id, role: 'admin' }),
      ]),
    );
    expect(listB.body.members).toHaveLength(2);
  });
});
