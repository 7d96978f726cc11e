/**
 * Admin catalog writes: templates (all fields, encrypted registry credentials, partial update),
 * categories (delete conflict, privacy), access grants both ways — and their effect on the catalog of
 * the organization concerned and on GET /catalog/templates/updates (templates and removed).
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { accessGrants, categories, signingKeys, templates } from '../../server/db/schema';
import { activeSealer, resealLegacySecrets } from '../../server/db/sealed';
import { decryptSecret, sealedFields } from '../../server/domain/sealing';
import { api, createCategory, createKey, createOrg, createTemplate, createUser, unique } from '../helpers';
import { auditRows, catalogSlugs, later } from '../account-admin-fixtures';

let admin: Awaited<ReturnType<typeof createUser>>;
beforeAll(async () => {
  admin = await createUser({ role: 'admin' });
});

const as = (method: string, path: string, body?: unknown) => api(path, { method, token: admin.token, body });

async function updates(token: string | null, since: string) {
  const res = await api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`, { token });
  expect(res.status).toBe(200);
  return {
    slugs: (res.body.templates as { slug: string }[]).map((t) => t.slug),
    removed: (res.body.removed as { slug: string }[]).map((t) => t.slug),
  };
}

async function mark() {
  const since = new Date().toISOString();
  await later();
  return since;
}

const FULL = {
  name: 'Full Template',
  description: 'Every field',
  version: '1.2.3',
  kind: 'deployment',
  image_name: 'registry.example.com/team/app',
  image_tag: 'v1.2.3',
  cpu_request: '500m',
  memory_request: '512Mi',
  gpu_count: 1,
  vram_request: '2Gi',
  concurrent_jobs: 2,
  env: [{ name: 'MODE', value: 'prod' }],
  env_schema: [{ name: 'TOKEN', required: true, default_value: '', description: 'API token' }],
  ports: [{ containerPort: 8080, protocol: 'TCP' }],
  volume_mounts: [{ name: 'data', mountPath: '/data' }],
  node_selector: { 'nvidia.com/gpu.present': 'true' },
  required_network_types: ['public', 'mesh'],
  tags: ['llm', 'gpu'],
  is_public: true,
  is_featured: true,
  min_tier: 'pro',
  documentation: '# Docs',
  registry_url: 'https://registry.example.com',
  registry_credentials: 'robot$reader:s3cr3t-REGISTRY-pass',
  secret_refs: ['app-secret'],
  command: ['/bin/app', '--serve'],
  tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
  icon_url: 'https://example.com/icon.png',
};

describe('templates', () => {
  it('creates with every field; registry credentials are encrypted, masked for admins, absent from the catalog', async () => {
    const cat = await createCategory();
    const slug = unique('full');
    const res = await as('POST', '/admin/templates', { ...FULL, slug, category_id: cat.id });
    expect(res.status).toBe(200);
    const t = res.body.template;
    const { registry_credentials: _c, ...rest } = FULL;
    expect(t).toMatchObject({
      ...rest,
      slug,
      category_id: cat.id,
      category_slug: cat.slug,
      org_id: null,
      download_count: 0,
    });
    expect(t.registry_credentials).toBe('********');
    expect(t.updated_at).toBe(t.created_at);

    const db = await getDb();
    const [row] = await db.select().from(templates).where(eq(templates.id, t.id));
    expect(row!.registryCredentialsEnc).toBeTruthy();
    expect(row!.registryCredentialsEnc).not.toContain('s3cr3t');
    expect(await decryptSecret(sealedFields.registryCredentials(t.id), row!.registryCredentialsEnc!)).toBe(
      FULL.registry_credentials,
    );

    const listed = await as('GET', `/admin/templates?search=${encodeURIComponent('Full Template')}`);
    expect(listed.body.templates.find((x: any) => x.id === t.id).registry_credentials).toBe('********');
    for (const path of [
      '/catalog/templates',
      `/catalog/templates/${slug}`,
      `/catalog/templates/updates?since=2000-01-01T00:00:00Z`,
    ]) {
      for (const token of [null, admin.token]) {
        const r = await api(path, { token });
        expect(r.status).toBe(200);
        const text = JSON.stringify(r.body);
        expect(text).toContain(slug);
        expect(text).not.toContain('s3cr3t');
        expect(text).not.toContain('registry_credentials');
      }
    }
    expect(JSON.stringify(await auditRows())).not.toContain('s3cr3t');
  });

  it('partial update changes only the sent fields and bumps updated_at; the mask keeps credentials, null removes them', async () => {
    const cat = await createCategory();
    const created = (await as('POST', '/admin/templates', { ...FULL, slug: unique('upd'), category_id: cat.id })).body
      .template;
    await later();
    const res = await as('PUT', '/admin/templates', {
      id: created.id,
      description: 'changed',
      registry_credentials: '********',
    });
    expect(res.status).toBe(200);
    const updated = res.body.template;
    expect(updated.description).toBe('changed');
    expect(updated.name).toBe(FULL.name);
    expect(updated.ports).toEqual(FULL.ports);
    expect(new Date(updated.updated_at).getTime()).toBeGreaterThan(new Date(created.updated_at).getTime());
    const db = await getDb();
    const enc = async () =>
      (await db.select().from(templates).where(eq(templates.id, created.id)))[0]!.registryCredentialsEnc;
    expect(await decryptSecret(sealedFields.registryCredentials(created.id), (await enc())!)).toBe(
      FULL.registry_credentials,
    );

    expect(
      (await as('PUT', '/admin/templates', { id: created.id, registry_credentials: 'new:secret-2' })).body.template
        .registry_credentials,
    ).toBe('********');
    expect(await decryptSecret(sealedFields.registryCredentials(created.id), (await enc())!)).toBe('new:secret-2');
    expect(
      (await as('PUT', '/admin/templates', { id: created.id, registry_credentials: null })).body.template
        .registry_credentials,
    ).toBeNull();
    expect(await enc()).toBeNull();
  });

  it('credentials are bound to their template: a ciphertext copied to another template does not open there', async () => {
    const cat = await createCategory();
    const a = (await as('POST', '/admin/templates', { ...FULL, slug: unique('bind-a'), category_id: cat.id })).body
      .template;
    const b = (
      await as('POST', '/admin/templates', {
        ...FULL,
        slug: unique('bind-b'),
        category_id: cat.id,
        registry_credentials: 'b:other',
      })
    ).body.template;
    const db = await getDb();
    const encOf = async (id: string) =>
      (await db.select().from(templates).where(eq(templates.id, id)))[0]!.registryCredentialsEnc!;
    const encA = await encOf(a.id);
    expect(encA.startsWith('v2.')).toBe(true);
    expect(await decryptSecret(sealedFields.registryCredentials(a.id), encA)).toBe(FULL.registry_credentials);
    await db.update(templates).set({ registryCredentialsEnc: encA }).where(eq(templates.id, b.id));
    await expect(decryptSecret(sealedFields.registryCredentials(b.id), await encOf(b.id))).rejects.toThrow();
    // A shortened tag is refused, not accepted as a weaker check.
    const [v, iv, tag, data] = encA.split('.');
    const short = [v, iv, Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url'), data].join('.');
    await expect(decryptSecret(sealedFields.registryCredentials(a.id), short)).rejects.toThrow();
  });

  it('a v1 ciphertext (no record binding) still opens and is re-sealed as v2 after migrations, once', async () => {
    const cat = await createCategory();
    const t = (await as('POST', '/admin/templates', { ...FULL, slug: unique('legacy'), category_id: cat.id })).body
      .template;
    const db = await getDb();
    // The v1 format as earlier releases wrote it: no additional authenticated data.
    const sealV1 = async (purpose: string, plaintext: string) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', activeSealer().key(purpose), iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', ...[iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url'))].join('.');
    };
    const v1 = await sealV1('registry-credentials', 'legacy:creds');
    await db.update(templates).set({ registryCredentialsEnc: v1 }).where(eq(templates.id, t.id));
    // A signing key stored by an earlier release (never the oldest one, so the key in use is unchanged).
    const kid = unique('legacy-kid');
    await db
      .insert(signingKeys)
      .values({ kid, alg: 'ES256', publicJwk: {}, privateJwkEnc: await sealV1('jwt-signing-key', '{"k":"legacy"}') });
    const field = sealedFields.registryCredentials(t.id);
    expect(await decryptSecret(field, v1)).toBe('legacy:creds');

    const encOf = async () =>
      (await db.select().from(templates).where(eq(templates.id, t.id)))[0]!.registryCredentialsEnc!;
    await resealLegacySecrets(db);
    const v2 = await encOf();
    expect(v2.startsWith('v2.')).toBe(true);
    expect(await decryptSecret(field, v2)).toBe('legacy:creds');
    await expect(decryptSecret(sealedFields.registryCredentials(cat.id), v2)).rejects.toThrow();
    const [key] = await db.select().from(signingKeys).where(eq(signingKeys.kid, kid));
    expect(key!.privateJwkEnc.startsWith('v2.')).toBe(true);
    expect(await decryptSecret(sealedFields.jwtSigningKey(kid), key!.privateJwkEnc)).toBe('{"k":"legacy"}');
    await db.delete(signingKeys).where(eq(signingKeys.kid, kid));
    await resealLegacySecrets(db);
    expect(await encOf()).toBe(v2);
  });

  it('slug conflicts (409), unknown category/org (404), reserved slug "updates" (400)', async () => {
    const cat = await createCategory();
    const slug = unique('dup');
    expect(
      (await as('POST', '/admin/templates', { name: 'A', slug, category_id: cat.id, image_name: 'nginx' })).status,
    ).toBe(200);
    const dup = await as('POST', '/admin/templates', { name: 'B', slug, category_id: cat.id, image_name: 'nginx' });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toMatch(/slug/);
    const other = (
      await as('POST', '/admin/templates', {
        name: 'C',
        slug: unique('other'),
        category_id: cat.id,
        image_name: 'nginx',
      })
    ).body.template;
    expect((await as('PUT', '/admin/templates', { id: other.id, slug })).status).toBe(409);
    const noCat = await as('POST', '/admin/templates', {
      name: 'D',
      slug: unique('d'),
      category_id: crypto.randomUUID(),
      image_name: 'nginx',
    });
    expect(noCat.status).toBe(404);
    expect(noCat.body.message).toMatch(/category_id/);
    const noOrg = await as('POST', '/admin/templates', {
      name: 'E',
      slug: unique('e'),
      category_id: cat.id,
      image_name: 'nginx',
      org_id: crypto.randomUUID(),
    });
    expect(noOrg.status).toBe(404);
    expect(noOrg.body.message).toMatch(/org_id/);
    const reserved = await as('POST', '/admin/templates', {
      name: 'U',
      slug: 'updates',
      category_id: cat.id,
      image_name: 'nginx',
    });
    expect(reserved.status).toBe(400);
    expect(reserved.body.message).toMatch(/slug/);
    expect((await as('PUT', '/admin/templates', { id: crypto.randomUUID(), name: 'x' })).status).toBe(404);
    expect((await as('DELETE', '/admin/templates', { id: crypto.randomUUID() })).status).toBe(404);
  });

  it('delete and hide reach incremental sync as removed; the admin list keeps private templates', async () => {
    const cat = await createCategory();
    const org = await createOrg();
    const key = await createKey(org.id);
    const gone = await createTemplate({ categoryId: cat.id, slug: unique('gone') });
    const hidden = await createTemplate({ categoryId: cat.id, slug: unique('hidden') });
    expect(await catalogSlugs(null)).toEqual(expect.arrayContaining([gone.slug, hidden.slug]));
    const since = await mark();

    expect((await as('DELETE', '/admin/templates', { id: gone.id })).body).toEqual({
      deleted: { id: gone.id, slug: gone.slug },
    });
    expect((await as('PUT', '/admin/templates', { id: hidden.id, is_public: false })).status).toBe(200);

    for (const token of [null, key.secret]) {
      expect(await catalogSlugs(token)).not.toEqual(expect.arrayContaining([gone.slug]));
      expect(await catalogSlugs(token)).not.toContain(hidden.slug);
      const u = await updates(token, since);
      expect(u.removed).toEqual(expect.arrayContaining([gone.slug, hidden.slug]));
      expect(u.slugs).not.toContain(hidden.slug);
    }
    // Admins still see the private one (as an update), and only the deleted one is removed for them.
    const forAdmin = await updates(admin.token, since);
    expect(forAdmin.slugs).toContain(hidden.slug);
    expect(forAdmin.removed).toEqual([gone.slug]);
    const adminList = await as('GET', `/admin/templates?search=${hidden.slug}`);
    expect(adminList.body.templates.map((t: any) => t.slug)).toEqual([hidden.slug]);

    // Making it public again delivers it as an update.
    const since2 = await mark();
    await as('PUT', '/admin/templates', { id: hidden.id, is_public: true });
    expect((await updates(null, since2)).slugs).toContain(hidden.slug);
  });

  it('moving ownership: the new owner receives the private template, the old owner gets it in removed', async () => {
    const cat = await createCategory();
    const a = await createOrg();
    const b = await createOrg();
    const keyA = await createKey(a.id);
    const keyB = await createKey(b.id);
    const t = (
      await as('POST', '/admin/templates', {
        name: 'Owned',
        slug: unique('owned'),
        category_id: cat.id,
        image_name: 'nginx',
        is_public: false,
        org_id: a.id,
      })
    ).body.template;
    expect(await catalogSlugs(keyA.secret)).toContain(t.slug);
    expect(await catalogSlugs(keyB.secret)).not.toContain(t.slug);
    expect(await catalogSlugs(null)).not.toContain(t.slug);
    const since = await mark();
    expect((await as('PUT', '/admin/templates', { id: t.id, org_id: b.id })).body.template.org_id).toBe(b.id);
    expect((await updates(keyA.secret, since)).removed).toContain(t.slug);
    expect((await updates(keyB.secret, since)).slugs).toContain(t.slug);
    expect(await catalogSlugs(keyB.secret)).toContain(t.slug);
  });
});

describe('categories', () => {
  it('creates, lists with template_count and access_count, updates, deletes', async () => {
    const slug = unique('cat');
    const created = await as('POST', '/admin/categories', {
      name: 'Cat',
      slug,
      description: 'd',
      icon: 'box',
      sort_order: 3,
      is_private: true,
    });
    expect(created.status).toBe(200);
    expect(created.body.category).toMatchObject({
      name: 'Cat',
      slug,
      description: 'd',
      icon: 'box',
      sort_order: 3,
      is_private: true,
      template_count: 0,
      access_count: 0,
    });
    const id = created.body.category.id;
    await createTemplate({ categoryId: id });
    await createTemplate({ categoryId: id, isPublic: false });
    const org = await createOrg();
    expect((await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: id })).status).toBe(200);
    const listed = (await as('GET', '/admin/categories')).body.categories.find((c: any) => c.id === id);
    expect(listed).toMatchObject({ template_count: 2, access_count: 1 });

    const updated = await as('PUT', '/admin/categories', { id, name: 'Renamed', sort_order: -1 });
    expect(updated.body.category).toMatchObject({ id, name: 'Renamed', slug, sort_order: -1, is_private: true });
    expect((await as('POST', '/admin/categories', { name: 'Other', slug })).status).toBe(409);
    expect((await as('PUT', '/admin/categories', { id: crypto.randomUUID(), name: 'x' })).status).toBe(404);
  });

  it('a new category without sort_order sorts after every existing one (not first)', async () => {
    await createCategory({ sortOrder: 500 });
    const slug = unique('cat-last');
    const created = await as('POST', '/admin/categories', { name: 'Last', slug });
    expect(created.status).toBe(200);
    const listed = (await as('GET', '/admin/categories')).body.categories as { slug: string; sort_order: number }[];
    expect(created.body.category.sort_order).toBeGreaterThan(
      Math.max(...listed.filter((c) => c.slug !== slug).map((c) => c.sort_order)),
    );
    expect(listed.at(-1)!.slug).toBe(slug);
    // An explicit sort order is kept as given.
    expect(
      (await as('POST', '/admin/categories', { name: 'First', slug: unique('cat-first'), sort_order: -5 })).body
        .category.sort_order,
    ).toBe(-5);
  });

  it('delete is refused while templates reference the category, saying how many; then succeeds and takes its grants', async () => {
    const cat = await createCategory({ isPrivate: true });
    const org = await createOrg();
    const t1 = await createTemplate({ categoryId: cat.id });
    const t2 = await createTemplate({ categoryId: cat.id });
    await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: cat.id });

    const refused = await as('DELETE', '/admin/categories', { id: cat.id });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/2 templates/);
    const db = await getDb();
    expect(await db.select().from(categories).where(eq(categories.id, cat.id))).toHaveLength(1);

    await as('DELETE', '/admin/templates', { id: t1.id });
    const stillOne = await as('DELETE', '/admin/categories', { id: cat.id });
    expect(stillOne.status).toBe(409);
    expect(stillOne.body.message).toMatch(/1 template\b/);
    await as('DELETE', '/admin/templates', { id: t2.id });

    const res = await as('DELETE', `/admin/categories?id=${cat.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: { id: cat.id, slug: cat.slug } });
    expect(await db.select().from(categories).where(eq(categories.id, cat.id))).toHaveLength(0);
    expect(await db.select().from(accessGrants).where(eq(accessGrants.categoryId, cat.id))).toHaveLength(0);
    expect((await as('DELETE', '/admin/categories', { id: cat.id })).status).toBe(404);
  });

  it('making a category private hides its templates (removed); opening it delivers them again', async () => {
    const cat = await createCategory();
    const t = await createTemplate({ categoryId: cat.id });
    const since = await mark();
    expect((await as('PUT', '/admin/categories', { id: cat.id, is_private: true })).status).toBe(200);
    expect(await catalogSlugs(null)).not.toContain(t.slug);
    expect((await updates(null, since)).removed).toContain(t.slug);
    const since2 = await mark();
    expect((await as('PUT', '/admin/categories', { id: cat.id, is_private: false })).status).toBe(200);
    expect(await catalogSlugs(null)).toContain(t.slug);
    const u = await updates(null, since2);
    expect(u.slugs).toContain(t.slug);
    expect(u.removed).not.toContain(t.slug);
  });

  it('renaming a category delivers its templates again (they carry category_name)', async () => {
    const cat = await createCategory();
    const t = await createTemplate({ categoryId: cat.id });
    const since = await mark();
    await as('PUT', '/admin/categories', { id: cat.id, name: 'Brand New Name' });
    const res = await api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`);
    expect(res.body.templates.find((x: any) => x.slug === t.slug)?.category_name).toBe('Brand New Name');
  });
});

describe('catalog access grants', () => {
  async function setup() {
    const org = await createOrg();
    const other = await createOrg();
    const key = await createKey(org.id);
    const otherKey = await createKey(other.id);
    const cat = await createCategory({ isPrivate: true });
    const t = await createTemplate({ categoryId: cat.id });
    return { org, other, key, otherKey, cat, t };
  }

  it('create: the organization sees the private category at once and receives its templates as updates', async () => {
    const { org, key, otherKey, cat, t } = await setup();
    expect(await catalogSlugs(key.secret)).not.toContain(t.slug);
    const since = await mark();
    const res = await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: cat.id });
    expect(res.status).toBe(200);
    expect(res.body.grant).toEqual({
      id: expect.any(String),
      org_id: org.id,
      org_name: org.name,
      org_slug: org.slug,
      category_id: cat.id,
      category_name: cat.name,
      category_slug: cat.slug,
      created_at: expect.any(String),
    });
    expect(await catalogSlugs(key.secret)).toContain(t.slug);
    expect((await updates(key.secret, since)).slugs).toContain(t.slug);
    const cats = await api('/catalog/categories', { token: key.secret });
    expect(cats.body.categories.map((c: any) => c.id)).toContain(cat.id);
    // Nobody else gains anything.
    expect(await catalogSlugs(otherKey.secret)).not.toContain(t.slug);
    expect(await catalogSlugs(null)).not.toContain(t.slug);

    const listed = await as('GET', `/admin/catalog-access?org_id=${org.id}`);
    expect(listed.body.grants).toEqual([res.body.grant]);
    expect((await as('GET', `/admin/catalog-access?category_id=${cat.id}`)).body.grants).toHaveLength(1);
  });

  it('409 when it exists; 400 for a non-private category; 404 for unknown ids', async () => {
    const { org, cat } = await setup();
    expect((await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: cat.id })).status).toBe(200);
    expect((await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: cat.id })).status).toBe(409);
    const open = await createCategory();
    const notPrivate = await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: open.id });
    expect(notPrivate.status).toBe(400);
    expect(notPrivate.body.message).toMatch(/category_id.*not private/);
    const noOrg = await as('POST', '/admin/catalog-access', { org_id: crypto.randomUUID(), category_id: cat.id });
    expect(noOrg.status).toBe(404);
    expect(noOrg.body.message).toMatch(/org_id/);
    const noCat = await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: crypto.randomUUID() });
    expect(noCat.status).toBe(404);
    expect(noCat.body.message).toMatch(/category_id/);
    expect((await as('GET', `/admin/catalog-access?org_id=${org.id}`)).body.grants).toHaveLength(1);
  });

  it('delete by id: the organization loses the category and gets its templates in removed', async () => {
    const { org, key, cat, t } = await setup();
    const grant = (await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: cat.id })).body.grant;
    expect(await catalogSlugs(key.secret)).toContain(t.slug);
    const since = await mark();
    const res = await as('DELETE', '/admin/catalog-access', { id: grant.id });
    expect(res.status).toBe(200);
    expect(res.body.deleted).toEqual(grant);
    expect(await catalogSlugs(key.secret)).not.toContain(t.slug);
    expect((await api(`/catalog/templates/${t.slug}`, { token: key.secret })).status).toBe(404);
    expect((await updates(key.secret, since)).removed).toContain(t.slug);
    expect((await as('DELETE', '/admin/catalog-access', { id: grant.id })).status).toBe(404);
  });

  it('delete by org_id + category_id, in the body or the query', async () => {
    const { org, key, cat, t } = await setup();
    await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: cat.id });
    const since = await mark();
    const res = await as('DELETE', '/admin/catalog-access', { org_id: org.id, category_id: cat.id });
    expect(res.status).toBe(200);
    expect(res.body.deleted).toMatchObject({ org_id: org.id, category_id: cat.id });
    expect(await catalogSlugs(key.secret)).not.toContain(t.slug);
    expect((await updates(key.secret, since)).removed).toContain(t.slug);

    await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: cat.id });
    expect(await catalogSlugs(key.secret)).toContain(t.slug);
    expect((await as('DELETE', `/admin/catalog-access?org_id=${org.id}&category_id=${cat.id}`)).status).toBe(200);
    expect(await catalogSlugs(key.secret)).not.toContain(t.slug);
    expect((await as('DELETE', '/admin/catalog-access', { org_id: org.id, category_id: cat.id })).status).toBe(404);
  });

  it('an organization that owns a template of the category keeps it after losing the grant', async () => {
    const { org, key, cat } = await setup();
    const owned = await createTemplate({ categoryId: cat.id, orgId: org.id });
    const grant = (await as('POST', '/admin/catalog-access', { org_id: org.id, category_id: cat.id })).body.grant;
    const since = await mark();
    await as('DELETE', '/admin/catalog-access', { id: grant.id });
    expect(await catalogSlugs(key.secret)).toContain(owned.slug);
    expect((await updates(key.secret, since)).removed).not.toContain(owned.slug);
  });
});
