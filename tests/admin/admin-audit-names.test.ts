/**
 * The audit log read side: names of actors and targets joined in (deleted ones keep the name they were
 * recorded with and are marked deleted), and the filters by actor, action, target and date range, through
 * REST (GET /api/v1/admin/audit-log) and tRPC (the same procedure), with bad filter values refused as 400.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { auditLog, users } from '../../server/db/schema';
import { api, createUser, unique } from '../helpers';

type Entry = {
  id: number;
  action: string;
  actor_id: string | null;
  actor_name: string | null;
  actor_email: string | null;
  actor_deleted: boolean;
  target_type: string;
  target_id: string | null;
  target_name: string | null;
  target_email: string | null;
  target_deleted: boolean;
  org_name: string | null;
  details: Record<string, unknown>;
  created_at: string;
};

describe('audit log names and filters', () => {
  let admin: Awaited<ReturnType<typeof createUser>>;
  let founder: Awaited<ReturnType<typeof createUser>>;
  let gone: Awaited<ReturnType<typeof createUser>>;
  let orgId: string;
  let orgName: string;
  let categoryId: string;
  let categoryName: string;
  const list = async (query: string) => {
    const res = await api(`/admin/audit-log?limit=100${query ? `&${query}` : ''}`, { token: admin.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.entries as Entry[];
  };

  beforeAll(async () => {
    admin = await createUser({ role: 'superadmin', name: 'Ada Admin' });
    founder = await createUser({ name: 'Fiona Founder' });
    gone = await createUser({ name: 'Gone Gary' });
    orgName = `Acme ${unique('o')}`;
    const org = await api('/account/organizations', {
      method: 'POST',
      token: founder.token,
      body: { name: orgName, slug: unique('acme').toLowerCase() },
    });
    expect(org.status).toBe(200);
    orgId = org.body.organization.id;
    categoryName = `Databases ${unique('c')}`;
    const cat = await api('/admin/categories', {
      method: 'POST',
      token: admin.token,
      body: { name: categoryName, slug: unique('db') },
    });
    expect(cat.status).toBe(200);
    categoryId = cat.body.category.id;
    expect(
      (await api('/admin/users', { method: 'PUT', token: admin.token, body: { id: gone.id, role: 'admin' } })).status,
    ).toBe(200);
    // A category deleted after its creation was recorded, and a user deleted by the admin.
    const doomed = await api('/admin/categories', {
      method: 'POST',
      token: admin.token,
      body: { name: 'Doomed Shelf', slug: unique('doomed') },
    });
    expect(
      (await api('/admin/categories', { method: 'DELETE', token: admin.token, body: { id: doomed.body.category.id } }))
        .status,
    ).toBe(200);
    expect((await api('/admin/users', { method: 'DELETE', token: admin.token, body: { id: gone.id } })).status).toBe(
      200,
    );
  });

  it('names actors, targets and organizations instead of bare ids', async () => {
    const entries = await list('');
    const created = entries.find((e) => e.action === 'organization.create' && e.target_id === orgId)!;
    expect(created).toBeDefined();
    expect(created.actor_name).toBe('Fiona Founder');
    expect(created.actor_email).toBe(founder.email);
    expect(created.target_name).toBe(orgName);
    expect(created.org_name).toBe(orgName);
    expect(created.target_deleted).toBe(false);
    const category = entries.find((e) => e.action === 'category.create' && e.target_id === categoryId)!;
    expect(category.actor_name).toBe('Ada Admin');
    expect(category.target_name).toBe(categoryName);
    const role = entries.find((e) => e.action === 'user.update_role' && e.target_id === gone.id)!;
    // Gary was deleted afterwards: his last known email, marked deleted.
    expect(role.target_deleted).toBe(true);
    expect(role.target_name).toBe(gone.email);
    expect(role.target_email).toBe(gone.email);
    const doomed = entries.find((e) => e.action === 'category.delete')!;
    expect(doomed.target_deleted).toBe(true);
    expect(doomed.target_name).toBe('Doomed Shelf');
  });

  it('marks an actor that no longer exists as deleted', async () => {
    const ghost = await createUser({ name: 'Ghost Writer' });
    const db = await getDb();
    await db.insert(auditLog).values({
      actorType: 'user',
      actorId: ghost.id,
      action: 'user.update_profile',
      targetType: 'user',
      targetId: ghost.id,
      details: { name: { from: '', to: 'Ghost Writer' } },
    });
    let [entry] = (await list(`actor=${ghost.id}`)).filter((e) => e.actor_id === ghost.id);
    expect(entry!.actor_name).toBe('Ghost Writer');
    expect(entry!.actor_deleted).toBe(false);
    await db.delete(users).where(eq(users.id, ghost.id));
    [entry] = await list(`actor=${ghost.id}`);
    expect(entry!.actor_name).toBeNull();
    expect(entry!.actor_deleted).toBe(true);
  });

  it('filters by actor name, email or id; by action; by target name; by date range', async () => {
    const all = await list('');
    const byFounderName = await list('actor=fiona%20FOUNDER');
    expect(byFounderName.length).toBeGreaterThan(0);
    expect(byFounderName.length).toBeLessThan(all.length);
    expect(byFounderName.every((e) => e.actor_id === founder.id)).toBe(true);
    expect((await list(`actor=${encodeURIComponent(founder.email)}`)).map((e) => e.id)).toEqual(
      byFounderName.map((e) => e.id),
    );
    expect((await list(`actor=${founder.id}`)).map((e) => e.id)).toEqual(byFounderName.map((e) => e.id));
    // LIKE wildcards are literal: "%" matches no one.
    expect(await list('actor=%25')).toEqual([]);

    const creations = await list('action=category.create');
    expect(creations.length).toBeGreaterThanOrEqual(2);
    expect(creations.every((e) => e.action === 'category.create')).toBe(true);

    const byCategory = await list(`target=${encodeURIComponent(categoryName.toUpperCase())}`);
    expect(byCategory.map((e) => e.target_id)).toEqual([categoryId]);
    // A deleted target is found under the name it was recorded with.
    const byDoomed = await list('target=doomed%20shelf');
    expect(byDoomed.map((e) => e.action).sort()).toEqual(['category.create', 'category.delete']);
    expect((await list('target_type=organization&actor=fiona')).map((e) => e.action)).toEqual(['organization.create']);

    const newest = new Date(all[0]!.created_at).getTime();
    expect(await list(`since=${encodeURIComponent(new Date(newest + 60_000).toISOString())}`)).toEqual([]);
    const until = await list(
      `until=${encodeURIComponent(new Date(newest + 60_000).toISOString())}&since=${encodeURIComponent(new Date(newest - 3_600_000).toISOString())}`,
    );
    expect(until.length).toBe(all.length);
  });

  it('pages the filtered list and refuses bad filter values with 400', async () => {
    const first = await api('/admin/audit-log?limit=1&page=1&actor=fiona', { token: admin.token });
    expect(first.body.pagination.total).toBe((await list('actor=fiona')).length);
    const bad = await api('/admin/audit-log?since=yesterday', { token: admin.token });
    expect(bad.status).toBe(400);
    const long = await api(`/admin/audit-log?actor=${'x'.repeat(201)}`, { token: admin.token });
    expect(long.status).toBe(400);
    const notAdmin = await api('/admin/audit-log', { token: founder.token });
    expect(notAdmin.status).toBe(403);
  });
});
