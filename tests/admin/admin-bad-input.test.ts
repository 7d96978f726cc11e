/**
 * Bad input for every account and admin write endpoint: malformed JSON, wrong content type, missing
 * fields, wrong types, oversized strings, unknown fields and unknown ids. Each answer is a 4xx JSON error
 * (400 naming the field for validation, 404 for unknown ids, 415 for a non-JSON body), never a 5xx, and
 * the database is byte-for-byte unchanged. The valid request is sent last and succeeds, so each refusal
 * is about the broken part alone.
 */
import { asc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import {
  accessGrants,
  auditLog,
  categories,
  instanceKeys,
  organizations,
  orgInvitations,
  personalAccessTokens,
  subscriptions,
  templateExits,
  templates,
  users,
} from '../../server/db/schema';
import { createInvitation } from '../../server/domain/invitations';
import {
  api,
  createCategory,
  createKey,
  createOrg,
  createTemplate,
  createUser,
  grantAccess,
  principalOf,
  unique,
} from '../helpers';

async function snapshot() {
  const db = await getDb();
  const parts = await Promise.all([
    db.select().from(organizations).orderBy(asc(organizations.id)),
    db.select().from(subscriptions).orderBy(asc(subscriptions.id)),
    db.select().from(users).orderBy(asc(users.id)),
    db.select().from(instanceKeys).orderBy(asc(instanceKeys.id)),
    db.select().from(personalAccessTokens).orderBy(asc(personalAccessTokens.id)),
    db.select().from(categories).orderBy(asc(categories.id)),
    db.select().from(templates).orderBy(asc(templates.id)),
    db.select().from(accessGrants).orderBy(asc(accessGrants.id)),
    db.select().from(templateExits).orderBy(asc(templateExits.id)),
    db.select().from(auditLog).orderBy(asc(auditLog.id)),
    db.select().from(orgInvitations).orderBy(asc(orgInvitations.id)),
  ]);
  return JSON.stringify(parts);
}

type Body = Record<string, unknown>;
interface Endpoint {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  who: 'orgAdmin' | 'admin';
  /** A valid body (fresh fixtures). */
  valid: () => Promise<Body>;
  /** Fields of the valid body that must be present. */
  required: string[];
  /** Bodies naming ids that do not exist (or belong to another organization) → 404. */
  unknownIds?: (valid: Body) => Body[];
}

let orgAdmin: Awaited<ReturnType<typeof createUser>>;
let admin: Awaited<ReturnType<typeof createUser>>;
let orgId: string;
let otherOrgKeyId: string;
let otherOrgMemberId: string;
let otherOrgInvitationId: string;

beforeAll(async () => {
  orgAdmin = await createUser();
  admin = await createUser({ role: 'superadmin' });
  orgId = (await createOrg({ admin: orgAdmin })).id;
  const otherMember = await createUser();
  const other = await createOrg({ members: [otherMember] });
  otherOrgKeyId = (await createKey(other.id)).id;
  otherOrgMemberId = otherMember.id;
  const otherAdmin = await createUser();
  await createOrg({ admin: otherAdmin }).then(async (o) => {
    otherOrgInvitationId = (
      await createInvitation(principalOf(otherAdmin, { id: o.id, role: 'admin' }), o.id, {
        email: `${unique('x')}@example.test`,
        role: 'member',
      })
    ).id;
  });
});

const randomId = () => crypto.randomUUID();

const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    path: '/account/organizations',
    required: ['name', 'slug'],
    who: 'admin',
    valid: async () => ({ name: 'Org', slug: unique('o').toLowerCase() }),
  },
  {
    method: 'PUT',
    path: '/account/profile',
    required: ['name'],
    who: 'orgAdmin',
    valid: async () => ({ name: 'Someone' }),
  },
  {
    method: 'POST',
    path: '/account/api-keys',
    required: ['name'],
    who: 'orgAdmin',
    valid: async () => ({ name: 'key' }),
  },
  {
    method: 'PUT',
    path: '/account/api-keys',
    required: ['id'],
    who: 'orgAdmin',
    valid: async () => ({ id: (await createKey(orgId)).id }),
    unknownIds: () => [{ id: randomId() }, { id: otherOrgKeyId }],
  },
  {
    method: 'DELETE',
    path: '/account/api-keys',
    required: ['id'],
    who: 'orgAdmin',
    valid: async () => ({ id: (await createKey(orgId)).id }),
    unknownIds: () => [{ id: randomId() }, { id: otherOrgKeyId }],
  },
  {
    method: 'POST',
    path: '/account/invitations',
    required: ['email', 'role'],
    who: 'orgAdmin',
    valid: async () => ({ email: `${unique('invitee')}@example.test`, role: 'member' }),
  },
  {
    method: 'DELETE',
    path: '/account/invitations',
    required: ['id'],
    who: 'orgAdmin',
    valid: async () => ({
      id: (
        await createInvitation(principalOf(orgAdmin, { id: orgId, role: 'admin' }), orgId, {
          email: `${unique('invitee')}@example.test`,
          role: 'member',
        })
      ).id,
    }),
    unknownIds: () => [{ id: randomId() }, { id: otherOrgInvitationId }],
  },
  {
    method: 'POST',
    path: '/account/invitations/decline',
    required: ['id'],
    who: 'admin',
    valid: async () => ({
      id: (
        await createInvitation(principalOf(orgAdmin, { id: orgId, role: 'admin' }), orgId, {
          email: admin.email,
          role: 'member',
        })
      ).id,
    }),
    // Another person's invitation looks like no invitation at all.
    unknownIds: () => [{ id: randomId() }, { id: otherOrgInvitationId }],
  },
  {
    method: 'PUT',
    path: '/account/members',
    required: ['user_id', 'role'],
    who: 'orgAdmin',
    valid: async () => {
      const u = await createUser();
      await (await getDb()).update(users).set({ orgId, orgRole: 'member' }).where(eq(users.id, u.id));
      return { user_id: u.id, role: 'admin' };
    },
    unknownIds: (v) => [
      { ...v, user_id: randomId() },
      { ...v, user_id: otherOrgMemberId },
    ],
  },
  {
    method: 'DELETE',
    path: '/account/members',
    required: ['user_id'],
    who: 'orgAdmin',
    valid: async () => {
      const u = await createUser();
      await (await getDb()).update(users).set({ orgId, orgRole: 'member' }).where(eq(users.id, u.id));
      return { user_id: u.id };
    },
    unknownIds: () => [{ user_id: randomId() }, { user_id: otherOrgMemberId }],
  },
  {
    method: 'POST',
    path: '/admin/templates',
    required: ['name', 'slug', 'category_id', 'image_name'],
    who: 'admin',
    valid: async () => ({
      name: 'T',
      slug: unique('t'),
      category_id: (await createCategory()).id,
      image_name: 'nginx',
      image_tag: '1.27',
      memory_request: '512Mi',
      vram_request: '2Gi',
      gpu_count: 0,
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      env: [{ name: 'A', value: '1' }],
      is_public: true,
      tags: ['web'],
      registry_credentials: 'user:pass',
    }),
    unknownIds: (v) => [
      { ...v, category_id: randomId() },
      { ...v, org_id: randomId() },
    ],
  },
  {
    method: 'PUT',
    path: '/admin/templates',
    required: ['id'],
    who: 'admin',
    valid: async () => ({
      id: (await createTemplate({ categoryId: (await createCategory()).id })).id,
      description: 'new',
      concurrent_jobs: 2,
      is_featured: true,
    }),
    unknownIds: (v) => [
      { ...v, id: randomId() },
      { ...v, category_id: randomId() },
    ],
  },
  {
    method: 'DELETE',
    path: '/admin/templates',
    required: ['id'],
    who: 'admin',
    valid: async () => ({ id: (await createTemplate({ categoryId: (await createCategory()).id })).id }),
    unknownIds: () => [{ id: randomId() }],
  },
  {
    method: 'POST',
    path: '/admin/categories',
    required: ['name', 'slug'],
    who: 'admin',
    valid: async () => ({
      name: 'C',
      slug: unique('c'),
      description: 'd',
      icon: 'i',
      sort_order: 1,
      is_private: false,
    }),
  },
  {
    method: 'PUT',
    path: '/admin/categories',
    required: ['id'],
    who: 'admin',
    valid: async () => ({ id: (await createCategory()).id, name: 'Renamed', is_private: true }),
    unknownIds: (v) => [{ ...v, id: randomId() }],
  },
  {
    method: 'DELETE',
    path: '/admin/categories',
    required: ['id'],
    who: 'admin',
    valid: async () => ({ id: (await createCategory()).id }),
    unknownIds: () => [{ id: randomId() }],
  },
  {
    method: 'POST',
    path: '/admin/catalog-access',
    required: ['org_id', 'category_id'],
    who: 'admin',
    valid: async () => ({
      org_id: (await createOrg()).id,
      category_id: (await createCategory({ isPrivate: true })).id,
    }),
    unknownIds: (v) => [
      { ...v, org_id: randomId() },
      { ...v, category_id: randomId() },
    ],
  },
  {
    method: 'DELETE',
    path: '/admin/catalog-access',
    required: ['id'],
    who: 'admin',
    valid: async () => ({
      id: (await grantAccess((await createOrg()).id, (await createCategory({ isPrivate: true })).id)).id,
    }),
    unknownIds: () => [{ id: randomId() }, { org_id: randomId(), category_id: randomId() }],
  },
  {
    method: 'PUT',
    path: '/admin/users',
    required: ['id', 'role'],
    who: 'admin',
    valid: async () => ({ id: (await createUser()).id, role: 'admin' }),
    unknownIds: (v) => [{ ...v, id: randomId() }],
  },
  {
    method: 'DELETE',
    path: '/admin/users',
    required: ['id'],
    who: 'admin',
    valid: async () => ({ id: (await createUser()).id }),
    unknownIds: () => [{ id: randomId() }],
  },
  {
    method: 'PUT',
    path: '/admin/organizations',
    required: ['id'],
    who: 'admin',
    valid: async () => ({ id: (await createOrg()).id, status: 'active', tier: 'pro' }),
    unknownIds: (v) => [{ ...v, id: randomId() }],
  },
  {
    method: 'DELETE',
    path: '/admin/api-keys',
    required: ['id'],
    who: 'admin',
    valid: async () => ({ id: (await createKey(orgId)).id }),
    unknownIds: () => [{ id: randomId() }],
  },
];

/**
 * Values of the wrong JSON type for a field whose valid value is `v`. Numeric and boolean strings, and
 * null, are included: a coercing schema would accept them ("false" as true, "12" and null as numbers).
 */
function wrongTypes(v: unknown): unknown[] {
  if (typeof v === 'string') return [12345, true];
  if (typeof v === 'number') return ['twelve', String(v), null, true];
  if (typeof v === 'boolean') return ['yes', String(v), String(!v), 1, 0, null];
  if (Array.isArray(v)) return ['not-a-list', { 0: 'x' }];
  return ['not-an-object'];
}

describe('bad input on every write endpoint', () => {
  for (const ep of ENDPOINTS) {
    it(`${ep.method} ${ep.path}`, async () => {
      const token = ep.who === 'admin' ? admin.token : orgAdmin.token;
      const valid = await ep.valid();
      const cases: {
        name: string;
        body?: unknown;
        rawBody?: string;
        headers?: Record<string, string>;
        status: number;
        field?: string;
      }[] = [];

      cases.push({
        name: 'malformed JSON',
        rawBody: '{"name": "x", ',
        headers: { 'content-type': 'application/json' },
        status: 400,
      });
      cases.push({
        name: 'JSON array body',
        rawBody: '[1,2]',
        headers: { 'content-type': 'application/json' },
        status: 400,
      });
      if (ep.method === 'DELETE') {
        cases.push({
          name: 'form-encoded body',
          rawBody: `id=${String(Object.values(valid)[0])}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          status: 400,
        });
      } else {
        cases.push({
          name: 'wrong content type',
          rawBody: JSON.stringify(valid),
          headers: { 'content-type': 'text/plain' },
          status: 415,
        });
        cases.push({ name: 'no content type', rawBody: JSON.stringify(valid), status: 415 });
        cases.push({ name: 'unknown field', body: { ...valid, bogus_field: 1 }, status: 400, field: 'bogus_field' });
      }
      cases.push({ name: 'empty body', body: {}, status: 400, field: ep.required[0] });
      for (const [field, value] of Object.entries(valid)) {
        const { [field]: _omitted, ...without } = valid;
        if (ep.required.includes(field)) cases.push({ name: `missing ${field}`, body: without, status: 400, field });
        if (ep.method === 'DELETE') {
          // Query-string input: every scalar arrives as a string, so a wrong type is a malformed id or an object.
          cases.push({ name: `${field} as object`, body: { ...valid, [field]: { nested: true } }, status: 400, field });
          cases.push({ name: `${field} not a uuid`, body: { ...valid, [field]: 12345 }, status: 400, field });
        } else {
          for (const wrong of wrongTypes(value)) {
            cases.push({
              name: `${field} = ${JSON.stringify(wrong)}`,
              body: { ...valid, [field]: wrong },
              status: 400,
              field,
            });
          }
        }
        if (typeof value === 'string')
          cases.push({
            name: `${field} oversized`,
            body: { ...valid, [field]: 'x'.repeat(200_001) },
            status: 400,
            field,
          });
      }
      for (const body of ep.unknownIds?.(valid) ?? [])
        cases.push({ name: `unknown id ${JSON.stringify(body)}`, body, status: 404 });

      for (const c of cases) {
        const before = await snapshot();
        const res = await api(ep.path, {
          method: ep.method,
          token,
          body: c.body,
          rawBody: c.rawBody,
          headers: c.headers,
        });
        const label = `${ep.method} ${ep.path}: ${c.name}`;
        expect(res.status, `${label} → ${JSON.stringify(res.body).slice(0, 300)}`).toBe(c.status);
        expect(res.body, label).toMatchObject({ code: expect.any(String), message: expect.any(String) });
        if (c.field) expect(res.body.message, label).toContain(c.field);
        expect(await snapshot(), `${label}: nothing written`).toBe(before);
      }

      const ok = await api(ep.path, { method: ep.method, token, body: valid });
      expect(ok.status, `${ep.method} ${ep.path} valid → ${JSON.stringify(ok.body).slice(0, 300)}`).toBe(200);
    });
  }
});

describe('template field validation', () => {
  it('names the offending field for quantities, ports, env names, slugs, URLs and nested shapes', async () => {
    const cat = await createCategory();
    const base = { name: 'V', category_id: cat.id, image_name: 'nginx' };
    const bad: [Body, string][] = [
      [{ memory_request: '512' }, 'memory_request'],
      [{ memory_request: '512MB' }, 'memory_request'],
      [{ vram_request: '2 Gi' }, 'vram_request'],
      [{ cpu_request: 'lots' }, 'cpu_request'],
      [{ ports: [{ containerPort: 0 }] }, 'ports.0.containerPort'],
      [{ ports: [{ containerPort: 65536 }] }, 'ports.0.containerPort'],
      [{ ports: [{ containerPort: 80.5 }] }, 'ports.0.containerPort'],
      [{ ports: [{ containerPort: 80, protocol: 'HTTP' }] }, 'ports.0.protocol'],
      [{ ports: [{ containerPort: 80 }, { containerPort: 80 }] }, 'ports.1.containerPort'],
      [
        {
          env: [
            { name: 'A', value: '1' },
            { name: 'A', value: '2' },
          ],
        },
        'env.1.name',
      ],
      [{ env: [{ name: '1BAD', value: '1' }] }, 'env.0.name'],
      [{ env: [{ name: 'A' }] }, 'env.0.value'],
      [{ env_schema: [{ name: 'X', required: 'yes' }] }, 'env_schema.0.required'],
      [{ env_schema: [{ name: 'X', required: 'false' }] }, 'env_schema.0.required'],
      [{ ports: [{ containerPort: '80' }] }, 'ports.0.containerPort'],
      [{ tolerations: [{ key: 'k', tolerationSeconds: '60' }] }, 'tolerations.0.tolerationSeconds'],
      [{ is_public: 'false' }, 'is_public'],
      [{ gpu_count: null }, 'gpu_count'],
      [{ gpu_count: '' }, 'gpu_count'],
      [{ env_schema: [{ name: 'X' }, { name: 'X' }] }, 'env_schema.1.name'],
      [{ volume_mounts: [{ name: 'data', mountPath: 'relative' }] }, 'volume_mounts.0.mountPath'],
      [{ node_selector: { a: 1 } }, 'node_selector.a'],
      [{ slug: 'Bad Slug' }, 'slug'],
      [{ slug: '-edge' }, 'slug'],
      [{ image_name: 'UPPER/Case' }, 'image_name'],
      [{ image_tag: 'has space' }, 'image_tag'],
      [{ min_tier: 'gold' }, 'min_tier'],
      [{ gpu_count: -1 }, 'gpu_count'],
      [{ concurrent_jobs: 0 }, 'concurrent_jobs'],
      [{ registry_url: 'ftp://x' }, 'registry_url'],
      [{ icon_url: 'javascript:alert(1)' }, 'icon_url'],
      [{ tolerations: [{ operator: 'Exists', value: 'x' }] }, 'tolerations.0.value'],
      [{ tolerations: [{ effect: 'Sometimes' }] }, 'tolerations.0.effect'],
      [{ secret_refs: ['ok', 'ok'] }, 'secret_refs.1'],
      [{ tags: ['a', 'a'] }, 'tags.1'],
      [{ required_network_types: ['Public Net'] }, 'required_network_types.0'],
      [{ kind: 'Deployment!' }, 'kind'],
      [{ command: [1, 2] }, 'command.0'],
      [{ registry_credentials: '' }, 'registry_credentials'],
    ];
    for (const [patch, field] of bad) {
      const before = await snapshot();
      const res = await api('/admin/templates', {
        method: 'POST',
        token: admin.token,
        body: { ...base, slug: unique('v'), ...patch },
      });
      expect(res.status, `${JSON.stringify(patch)} → ${JSON.stringify(res.body).slice(0, 200)}`).toBe(400);
      expect(res.body.message, JSON.stringify(patch)).toContain(field);
      expect(await snapshot()).toBe(before);
    }
    const good = await api('/admin/templates', {
      method: 'POST',
      token: admin.token,
      body: {
        ...base,
        slug: unique('v'),
        memory_request: '1.5Gi',
        vram_request: '24G',
        cpu_request: '0.5',
        ports: [{ containerPort: 65535, protocol: 'UDP' }, { containerPort: 65535 }],
      },
    });
    expect(good.status).toBe(200);
  });
});
