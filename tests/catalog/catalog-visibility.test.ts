/**
 * The visibility table: every caller kind against every kind of template, through list, get,
 * categories (with counts) and updates. Expected sets are written out per caller, not derived.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createCategory, createKey, createOrg, createTemplate, createUser, grantAccess } from '../helpers';

type Caller = 'anonymous' | 'keyA' | 'keyB' | 'memberA' | 'userNoOrg' | 'admin' | 'superadmin';
const tokens = {} as Record<Caller, string | null>;

// Template kinds:
//   pub        public, public category
//   draft      not public, public category, no owner
//   ownA       not public, owned by org A, public category
//   ownB       not public, owned by org B, public category
//   grantPub   public, private category granted to A
//   grantDraft not public, private category granted to A
//   lockedPub  public, private category without grants
//   ownAlocked not public, owned by A, in the private category without grants
const expected: Record<Caller, string[]> = {
  anonymous: ['pub'],
  userNoOrg: ['pub'],
  keyA: ['pub', 'ownA', 'grantPub', 'grantDraft', 'ownAlocked'],
  memberA: ['pub', 'ownA', 'grantPub', 'grantDraft', 'ownAlocked'],
  keyB: ['pub', 'ownB'],
  admin: ['pub', 'draft', 'ownA', 'ownB', 'grantPub', 'grantDraft', 'lockedPub', 'ownAlocked'],
  superadmin: ['pub', 'draft', 'ownA', 'ownB', 'grantPub', 'grantDraft', 'lockedPub', 'ownAlocked'],
};
const ALL = expected.admin;
const slug = (kind: string) => `vis-${kind}`;
const callers = Object.keys(expected) as Caller[];

let cats: { open: string; granted: string; locked: string };

beforeAll(async () => {
  const memberA = await createUser();
  const adminA = await createUser();
  const orgA = await createOrg({ admin: adminA, members: [memberA] });
  const orgB = await createOrg({ admin: await createUser() });
  const open = await createCategory({ slug: 'vis-open', sortOrder: 1 });
  const granted = await createCategory({ slug: 'vis-granted', isPrivate: true, sortOrder: 2 });
  const locked = await createCategory({ slug: 'vis-locked', isPrivate: true, sortOrder: 3 });
  cats = { open: open.id, granted: granted.id, locked: locked.id };
  await grantAccess(orgA.id, granted.id);
  await createTemplate({ slug: slug('pub'), categoryId: open.id, isPublic: true });
  await createTemplate({ slug: slug('draft'), categoryId: open.id, isPublic: false });
  await createTemplate({ slug: slug('ownA'), categoryId: open.id, isPublic: false, orgId: orgA.id });
  await createTemplate({ slug: slug('ownB'), categoryId: open.id, isPublic: false, orgId: orgB.id });
  await createTemplate({ slug: slug('grantPub'), categoryId: granted.id, isPublic: true });
  await createTemplate({ slug: slug('grantDraft'), categoryId: granted.id, isPublic: false });
  await createTemplate({ slug: slug('lockedPub'), categoryId: locked.id, isPublic: true });
  await createTemplate({ slug: slug('ownAlocked'), categoryId: locked.id, isPublic: false, orgId: orgA.id });

  tokens.anonymous = null;
  tokens.keyA = (await createKey(orgA.id)).secret;
  tokens.keyB = (await createKey(orgB.id)).secret;
  tokens.memberA = memberA.token;
  tokens.userNoOrg = (await createUser()).token;
  tokens.admin = (await createUser({ role: 'admin' })).token;
  tokens.superadmin = (await createUser({ role: 'superadmin' })).token;
});

describe.each(callers)('caller %s', (caller) => {
  const visible = expected[caller].map(slug).sort();

  it('lists exactly the visible templates', async () => {
    const res = await api('/catalog/templates?limit=100', { token: tokens[caller] });
    expect(res.status).toBe(200);
    expect(res.body.templates.map((t: any) => t.slug).sort()).toEqual(visible);
    expect(res.body.pagination.total).toBe(visible.length);
  });

  it('gets visible templates by slug and 404s the others', async () => {
    for (const kind of ALL) {
      const res = await api(`/catalog/templates/${slug(kind)}`, { token: tokens[caller] });
      const shouldSee = expected[caller].includes(kind);
      expect({ kind, status: res.status }).toEqual({ kind, status: shouldSee ? 200 : 404 });
      if (shouldSee) expect(res.body.slug).toBe(slug(kind));
      else expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('receives exactly the visible templates from updates', async () => {
    const res = await api('/catalog/templates/updates?since=2000-01-01T00:00:00Z', { token: tokens[caller] });
    expect(res.status).toBe(200);
    expect(res.body.templates.map((t: any) => t.slug).sort()).toEqual(visible);
    expect(res.body.removed).toEqual([]);
  });

  it('lists visible categories with counts of the templates it can see', async () => {
    const res = await api('/catalog/categories', { token: tokens[caller] });
    expect(res.status).toBe(200);
    const counts = Object.fromEntries(res.body.categories.map((c: any) => [c.slug, c.template_count]));
    const countIn = (kinds: string[]) => expected[caller].filter((k) => kinds.includes(k)).length;
    const want: Record<string, number> = { 'vis-open': countIn(['pub', 'draft', 'ownA', 'ownB']) };
    if (caller === 'keyA' || caller === 'memberA' || caller.endsWith('admin'))
      want['vis-granted'] = countIn(['grantPub', 'grantDraft']);
    if (caller.endsWith('admin')) want['vis-locked'] = countIn(['lockedPub', 'ownAlocked']);
    expect(counts).toEqual(want);
  });
});

it('returns every Template field of the spec with its type', async () => {
  const res = await api(`/catalog/templates/${slug('pub')}`);
  const t = res.body;
  expect(Object.keys(t).sort()).toEqual(
    [
      'id',
      'name',
      'slug',
      'description',
      'version',
      'kind',
      'category_id',
      'category_name',
      'category_slug',
      'category_icon',
      'image_name',
      'image_tag',
      'cpu_request',
      'memory_request',
      'gpu_count',
      'vram_request',
      'concurrent_jobs',
      'env',
      'env_schema',
      'ports',
      'volume_mounts',
      'node_selector',
      'required_network_types',
      'tags',
      'is_public',
      'is_featured',
      'min_tier',
      'download_count',
      'documentation',
      'updated_at',
    ].sort(),
  );
  expect(t.category_id).toBe(cats.open);
  expect(t.category_slug).toBe('vis-open');
  expect(
    Array.isArray(t.env) && Array.isArray(t.env_schema) && Array.isArray(t.ports) && Array.isArray(t.volume_mounts),
  ).toBe(true);
  expect(typeof t.node_selector).toBe('object');
  expect(Array.isArray(t.node_selector)).toBe(false);
  expect(typeof t.gpu_count).toBe('number');
  expect(typeof t.download_count).toBe('number');
  expect(new Date(t.updated_at).toISOString()).toBe(t.updated_at);
  expect(JSON.stringify(t)).not.toMatch(/registry_credentials/);
});
