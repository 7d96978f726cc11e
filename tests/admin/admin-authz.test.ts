/**
 * Authorization matrix of every admin endpoint: platform role admin or superadmin → success; other
 * signed-in users and instance keys → 403; no credential, a PAT or a deleted user's JWT → 401.
 * Each cell runs in a fresh world with its own fixtures.
 */
import { describe, expect, it } from 'vitest';
import { api, createCategory, createOrg, createTemplate, createUser, grantAccess, unique } from '../helpers';
import { CALLERS, world, type CallerKind, type World } from '../account-admin-fixtures';

type Req = { path: string; method: string; body?: unknown };
type Row = { name: string; request: (w: World) => Promise<Req> };

const EXPECTED: Record<CallerKind, number> = {
  none: 401,
  pat: 401,
  instance: 403,
  member: 403,
  orgAdmin: 403,
  platformAdmin: 200,
  superadmin: 200,
  deletedUser: 401,
};

const get = (path: string): Row => ({ name: `GET ${path}`, request: async () => ({ method: 'GET', path }) });

const rows: Row[] = [
  get('/admin/templates'),
  {
    name: 'POST /admin/templates',
    request: async () => {
      const cat = await createCategory();
      return {
        method: 'POST',
        path: '/admin/templates',
        body: { name: 'T', slug: unique('tpl'), category_id: cat.id, image_name: 'nginx' },
      };
    },
  },
  {
    name: 'PUT /admin/templates',
    request: async () => {
      const t = await createTemplate({ categoryId: (await createCategory()).id });
      return { method: 'PUT', path: '/admin/templates', body: { id: t.id, description: 'changed' } };
    },
  },
  {
    name: 'DELETE /admin/templates',
    request: async () => {
      const t = await createTemplate({ categoryId: (await createCategory()).id });
      return { method: 'DELETE', path: '/admin/templates', body: { id: t.id } };
    },
  },
  get('/admin/categories'),
  {
    name: 'POST /admin/categories',
    request: async () => ({ method: 'POST', path: '/admin/categories', body: { name: 'C', slug: unique('cat') } }),
  },
  {
    name: 'PUT /admin/categories',
    request: async () => ({
      method: 'PUT',
      path: '/admin/categories',
      body: { id: (await createCategory()).id, name: 'Renamed' },
    }),
  },
  {
    name: 'DELETE /admin/categories',
    request: async () => ({ method: 'DELETE', path: '/admin/categories', body: { id: (await createCategory()).id } }),
  },
  get('/admin/catalog-access'),
  {
    name: 'POST /admin/catalog-access',
    request: async (w) => ({
      method: 'POST',
      path: '/admin/catalog-access',
      body: { org_id: w.org.id, category_id: (await createCategory({ isPrivate: true })).id },
    }),
  },
  {
    name: 'DELETE /admin/catalog-access',
    request: async (w) => {
      const grant = await grantAccess(w.org.id, (await createCategory({ isPrivate: true })).id);
      return { method: 'DELETE', path: '/admin/catalog-access', body: { id: grant.id } };
    },
  },
  get('/admin/users'),
  {
    name: 'PUT /admin/users',
    request: async () => ({
      method: 'PUT',
      path: '/admin/users',
      body: { id: (await createUser()).id, role: 'admin' },
    }),
  },
  {
    name: 'DELETE /admin/users',
    request: async () => ({ method: 'DELETE', path: '/admin/users', body: { id: (await createUser()).id } }),
  },
  get('/admin/organizations'),
  {
    name: 'PUT /admin/organizations',
    request: async () => ({
      method: 'PUT',
      path: '/admin/organizations',
      body: { id: (await createOrg()).id, tier: 'pro' },
    }),
  },
  get('/admin/api-keys'),
  {
    name: 'DELETE /admin/api-keys',
    request: async (w) => ({ method: 'DELETE', path: '/admin/api-keys', body: { id: w.key.id } }),
  },
  get('/admin/stats'),
  get('/admin/audit-log'),
];

describe('admin authorization matrix', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const w = await world();
        const req = await row.request(w);
        const res = await api(req.path, { method: req.method, body: req.body, token: w.tokens[caller] });
        got[caller] = res.status;
        if (res.status >= 400)
          expect(res.body, `${row.name} as ${caller}`).toMatchObject({
            code: expect.any(String),
            message: expect.any(String),
          });
      }
      expect(got).toEqual(EXPECTED);
    });
  }

  it('the role is read from the database on every call: a demoted admin is refused at once', async () => {
    const admin = await createUser({ role: 'admin' });
    const superadmin = await createUser({ role: 'superadmin' });
    expect((await api('/admin/stats', { token: admin.token })).status).toBe(200);
    const res = await api('/admin/users', {
      method: 'PUT',
      token: superadmin.token,
      body: { id: admin.id, role: 'user' },
    });
    expect(res.status).toBe(200);
    expect((await api('/admin/stats', { token: admin.token })).status).toBe(403);
  });
});
