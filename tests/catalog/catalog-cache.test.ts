/** The catalog answer cache and the instance-key cache, within one process: never stale after a write. */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { generation } from '../../server/db/invalidation';
import { api, createCategory, createKey, createOrg, createTemplate, createUser } from '../helpers';
import { reloadConfig } from '../../server/config';

describe('HTTP caching', () => {
  it('sends an ETag and answers 304 to a matching If-None-Match, with the right Cache-Control', async () => {
    const cat = await createCategory();
    await createTemplate({ categoryId: cat.id, slug: 'cache-etag' });
    const org = await createOrg();
    const key = await createKey(org.id);

    const anon = await api('/catalog/templates');
    const etag = anon.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(anon.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
    const again = await api('/catalog/templates', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();
    expect(again.headers.get('etag')).toBe(etag);
    expect((await api('/catalog/templates', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);

    const keyed = await api('/catalog/templates', { token: key.secret });
    expect(keyed.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    expect(keyed.headers.get('vary')).toContain('Authorization');
    for (const path of [
      '/catalog/categories',
      '/catalog/templates/cache-etag',
      '/catalog/templates/updates?since=2000-01-01T00:00:00Z',
    ]) {
      const first = await api(path, { token: key.secret });
      const second = await api(path, { token: key.secret, headers: { 'if-none-match': first.headers.get('etag')! } });
      expect({ path, status: second.status }).toEqual({ path, status: 304 });
    }
  });

  it('a changed answer gets a new ETag and a 200 despite the old If-None-Match', async () => {
    const cat = await createCategory({ slug: 'cache-change' });
    const before = await api('/catalog/templates?category=cache-change');
    await createTemplate({ categoryId: cat.id, slug: 'cache-change-1' });
    const after = await api('/catalog/templates?category=cache-change', {
      headers: { 'if-none-match': before.headers.get('etag')! },
    });
    expect(after.status).toBe(200);
    expect(after.body.templates.map((t: any) => t.slug)).toEqual(['cache-change-1']);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });
});

describe('what changes without a catalog write', () => {
  it('is seen once the answer is older than HUB_RESPONSE_CACHE_TTL_MS', async () => {
    process.env.HUB_RESPONSE_CACHE_TTL_MS = '3000';
    reloadConfig();
    try {
      const cat = await createCategory();
      const template = await createTemplate({ categoryId: cat.id, slug: 'cache-ttl' });
      const db = await getDb();
      // On PostgreSQL this process also hears its own write's notification a moment later, which ends the entries
      // stored before it: start over when the catalog generation moved during a round.
      let count = 0;
      for (let round = 0; ; round++) {
        expect(round).toBeLessThan(5);
        const before = generation('catalog');
        expect((await api('/catalog/templates/cache-ttl')).body.download_count).toBe(count);
        // A download count changes without announcing a catalog write (as the batched download writer does).
        await db.execute(sql`update templates set download_count = ${count + 41} where id = ${template.id}`);
        const cached = (await api('/catalog/templates/cache-ttl')).body.download_count;
        if (generation('catalog') !== before) {
          count = cached;
          continue;
        }
        expect(cached).toBe(count);
        break;
      }
      await new Promise((r) => setTimeout(r, 3_100));
      expect((await api('/catalog/templates/cache-ttl')).body.download_count).toBe(count + 41);
    } finally {
      delete process.env.HUB_RESPONSE_CACHE_TTL_MS;
    }
  });
});

describe('a write is visible to the very next request', () => {
  it('template create, update, delete through the admin API', async () => {
    const admin = (await createUser({ role: 'admin' })).token;
    const { body } = await api('/admin/categories', {
      method: 'POST',
      token: admin,
      body: { name: 'Next', slug: 'cache-next' },
    });
    const list = () =>
      api('/catalog/templates?category=cache-next').then((r) =>
        r.body.templates.map((t: any) => `${t.slug}:${t.description}`),
      );
    expect(await list()).toEqual([]);
    const created = await api('/admin/templates', {
      method: 'POST',
      token: admin,
      body: { name: 'N', slug: 'cache-next-1', category_id: body.category.id, image_name: 'x/n', description: 'one' },
    });
    expect(created.status).toBe(200);
    expect(await list()).toEqual(['cache-next-1:one']);
    await api('/admin/templates', {
      method: 'PUT',
      token: admin,
      body: { id: created.body.template.id, description: 'two' },
    });
    expect(await list()).toEqual(['cache-next-1:two']);
    expect((await api('/catalog/templates/cache-next-1')).body.description).toBe('two');
    await api('/admin/templates', { method: 'DELETE', token: admin, body: { id: created.body.template.id } });
    expect(await list()).toEqual([]);
    expect((await api('/catalog/templates/cache-next-1')).status).toBe(404);
  });

  it('a grant opens a private category to the key at once, and its revocation closes it', async () => {
    const admin = (await createUser({ role: 'admin' })).token;
    const org = await createOrg();
    const key = await createKey(org.id);
    const cat = await createCategory({ slug: 'cache-grant', isPrivate: true });
    await createTemplate({ categoryId: cat.id, slug: 'cache-grant-1' });
    const seen = async () =>
      (await api('/catalog/templates?category=cache-grant', { token: key.secret })).body.templates.length;
    expect(await seen()).toBe(0);
    const grant = await api('/admin/catalog-access', {
      method: 'POST',
      token: admin,
      body: { org_id: org.id, category_id: cat.id },
    });
    expect(grant.status).toBe(200);
    expect(await seen()).toBe(1);
    await api('/admin/catalog-access', { method: 'DELETE', token: admin, body: { id: grant.body.grant.id } });
    expect(await seen()).toBe(0);
  });

  it('re-issue and revoke refuse the cached key at once; suspension too', async () => {
    const orgAdmin = await createUser();
    const org = await createOrg({ admin: orgAdmin });
    const created = await api('/account/api-keys', { method: 'POST', token: orgAdmin.token, body: { name: 'cached' } });
    const first = created.body.apiKey.key as string;
    expect((await api('/catalog/templates', { token: first })).status).toBe(200); // now cached
    const reissued = await api('/account/api-keys', {
      method: 'PUT',
      token: orgAdmin.token,
      body: { id: created.body.apiKey.id },
    });
    expect((await api('/catalog/templates', { token: first })).status).toBe(401);
    const second = reissued.body.apiKey.key as string;
    expect((await api('/catalog/templates', { token: second })).status).toBe(200);

    const platformAdmin = (await createUser({ role: 'admin' })).token;
    await api('/admin/organizations', {
      method: 'PUT',
      token: platformAdmin,
      body: { id: org.id, status: 'suspended' },
    });
    expect((await api('/catalog/templates', { token: second })).status).toBe(403);
    await api('/admin/organizations', { method: 'PUT', token: platformAdmin, body: { id: org.id, status: 'active' } });
    expect((await api('/catalog/templates', { token: second })).status).toBe(200);

    await api('/account/api-keys', { method: 'DELETE', token: orgAdmin.token, body: { id: created.body.apiKey.id } });
    expect((await api('/catalog/templates', { token: second })).status).toBe(401);
  });
});
