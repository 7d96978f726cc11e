/**
 * Audit records: one per write, in the same transaction (a refused write leaves none), naming the actor,
 * action and target; and never containing a secret — keys, key hashes, registry credentials (clear or sealed).
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { templates } from '../../server/db/schema';
import { scrubAuditDetails, writeAudit } from '../../server/domain/audit';
import { hashSecret } from '@shared/tokens';
import { api, createCategory, createOrg, createUser, unique } from '../helpers';
import { auditRows } from '../account-admin-fixtures';

describe('audit log', () => {
  it('every account and admin write leaves exactly one record; no secret ever appears', async () => {
    const superadmin = await createUser({ role: 'superadmin' });
    const founder = await createUser();
    const newcomer = await createUser();
    const other = await createUser();
    const secrets: string[] = [];
    const expected: { action: string; actor: string; target?: string }[] = [];
    const call = async (token: string, method: string, path: string, body: unknown, action: string, actor: string) => {
      const before = (await auditRows()).length;
      const res = await api(path, { method, token, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
      const rows = (await auditRows()).slice(before);
      expect(
        rows.map((r) => r.action),
        `${method} ${path}`,
      ).toEqual([action]);
      expect(rows[0]!.actorId).toBe(actor);
      expected.push({ action, actor });
      return res.body;
    };

    const org = (
      await call(
        founder.token,
        'POST',
        '/account/organizations',
        { name: 'Audited', slug: unique('aud').toLowerCase() },
        'organization.create',
        founder.id,
      )
    ).organization;
    await call(founder.token, 'PUT', '/account/profile', { name: 'Founder' }, 'user.update_profile', founder.id);
    const key = (await call(founder.token, 'POST', '/account/api-keys', { name: 'k' }, 'api_key.create', founder.id))
      .apiKey;
    secrets.push(key.key, hashSecret(key.key));
    const reissued = (
      await call(founder.token, 'PUT', '/account/api-keys', { id: key.id }, 'api_key.reissue', founder.id)
    ).apiKey;
    secrets.push(reissued.key, hashSecret(reissued.key));
    await call(founder.token, 'DELETE', '/account/api-keys', { id: key.id }, 'api_key.revoke', founder.id);
    const invitation = (
      await call(
        founder.token,
        'POST',
        '/account/invitations',
        { email: newcomer.email, role: 'member' },
        'invitation.create',
        founder.id,
      )
    ).invitation;
    await call(founder.token, 'DELETE', '/account/invitations', { id: invitation.id }, 'invitation.revoke', founder.id);
    const again = (
      await call(
        founder.token,
        'POST',
        '/account/invitations',
        { email: newcomer.email, role: 'member' },
        'invitation.create',
        founder.id,
      )
    ).invitation;
    await call(newcomer.token, 'POST', '/account/invitations/accept', { id: again.id }, 'member.add', newcomer.id);
    await call(
      founder.token,
      'PUT',
      '/account/members',
      { user_id: newcomer.id, role: 'admin' },
      'member.update',
      founder.id,
    );
    await call(founder.token, 'DELETE', '/account/members', { user_id: newcomer.id }, 'member.remove', founder.id);

    const cat = (
      await call(
        superadmin.token,
        'POST',
        '/admin/categories',
        { name: 'A', slug: unique('ac'), is_private: true },
        'category.create',
        superadmin.id,
      )
    ).category;
    await call(
      superadmin.token,
      'PUT',
      '/admin/categories',
      { id: cat.id, description: 'x' },
      'category.update',
      superadmin.id,
    );
    const credentials = 'robot:VERY-SECRET-REGISTRY-TOKEN';
    secrets.push(credentials, 'VERY-SECRET-REGISTRY-TOKEN');
    const tpl = (
      await call(
        superadmin.token,
        'POST',
        '/admin/templates',
        { name: 'T', slug: unique('at'), category_id: cat.id, image_name: 'nginx', registry_credentials: credentials },
        'template.create',
        superadmin.id,
      )
    ).template;
    await call(
      superadmin.token,
      'PUT',
      '/admin/templates',
      { id: tpl.id, registry_credentials: 'robot:ANOTHER-SECRET-VALUE' },
      'template.update',
      superadmin.id,
    );
    secrets.push('ANOTHER-SECRET-VALUE');
    const db = await getDb();
    secrets.push((await db.select().from(templates).where(eq(templates.id, tpl.id)))[0]!.registryCredentialsEnc!);
    const grant = (
      await call(
        superadmin.token,
        'POST',
        '/admin/catalog-access',
        { org_id: org.id, category_id: cat.id },
        'access_grant.create',
        superadmin.id,
      )
    ).grant;
    await call(
      superadmin.token,
      'DELETE',
      '/admin/catalog-access',
      { id: grant.id },
      'access_grant.delete',
      superadmin.id,
    );
    await call(superadmin.token, 'DELETE', '/admin/templates', { id: tpl.id }, 'template.delete', superadmin.id);
    await call(superadmin.token, 'DELETE', '/admin/categories', { id: cat.id }, 'category.delete', superadmin.id);
    await call(
      superadmin.token,
      'PUT',
      '/admin/users',
      { id: other.id, role: 'admin' },
      'user.update_role',
      superadmin.id,
    );
    await call(
      superadmin.token,
      'PUT',
      '/admin/organizations',
      { id: org.id, tier: 'pro' },
      'organization.update',
      superadmin.id,
    );
    const key2 = (await api('/account/api-keys', { method: 'POST', token: founder.token, body: { name: 'k2' } })).body
      .apiKey;
    secrets.push(key2.key, hashSecret(key2.key));
    await call(superadmin.token, 'DELETE', '/admin/api-keys', { id: key2.id }, 'api_key.revoke', superadmin.id);
    await call(superadmin.token, 'DELETE', '/admin/users', { id: other.id }, 'user.delete', superadmin.id);

    const all = JSON.stringify(await auditRows());
    for (const s of secrets) expect(all).not.toContain(s);
    // Readable through the API as well, with the same guarantee.
    const listed = await api('/admin/audit-log?limit=100', { token: superadmin.token });
    expect(listed.body.entries.length).toBeGreaterThanOrEqual(expected.length);
    for (const s of secrets) expect(JSON.stringify(listed.body)).not.toContain(s);
  });

  it('a refused write leaves no audit record', async () => {
    const admin = await createUser();
    await createOrg({ admin });
    const before = (await auditRows()).length;
    expect(
      (await api('/account/members', { method: 'DELETE', token: admin.token, body: { user_id: admin.id } })).status,
    ).toBe(409);
    const cat = await createCategory({ isPrivate: false });
    const org = await createOrg();
    const superadmin = await createUser({ role: 'superadmin' });
    expect(
      (
        await api('/admin/catalog-access', {
          method: 'POST',
          token: superadmin.token,
          body: { org_id: org.id, category_id: cat.id },
        })
      ).status,
    ).toBe(400);
    expect((await auditRows()).length).toBe(before);
  });

  it('writeAudit scrubs secret-looking fields and embedded svh_/svp_ secrets from details', async () => {
    const db = await getDb();
    const secret = 'svh_' + 'A'.repeat(38);
    await db.transaction((tx) =>
      writeAudit(tx, {
        actor: { kind: 'system' },
        action: 'test.scrub',
        targetType: 'test',
        details: {
          key: secret,
          token: 'x',
          registry_credentials: 'u:p',
          nested: { password: 'p' },
          note: `leaked ${secret} here`,
          key_prefix: 'svh_AAAAAAAA',
        },
      }),
    );
    const row = (await auditRows()).find((r) => r.action === 'test.scrub')!;
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.details).toMatchObject({
      key: '[redacted]',
      token: '[redacted]',
      registry_credentials: '[redacted]',
      nested: { password: '[redacted]' },
      key_prefix: 'svh_AAAAAAAA',
    });
    expect(scrubAuditDetails({ name: 'fine', count: 2 })).toEqual({ name: 'fine', count: 2 });
  });
});
