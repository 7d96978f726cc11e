/**
 * Authorization matrix of every account endpoint: each caller kind against each endpoint, each cell in a
 * fresh world so that a successful write in one cell cannot change another's answer.
 * Platform admins here belong to no organization: org-scoped endpoints (keys, members) refuse them (403).
 */
import { describe, expect, it } from 'vitest';
import { createInvitation } from '../../server/domain/invitations';
import { api, principalOf, unique } from '../helpers';
import { CALLERS, world, type CallerKind, type World } from '../account-admin-fixtures';

const invite = (w: World, email: string) =>
  createInvitation(principalOf(w.orgAdmin, { id: w.org.id, role: 'admin' }), w.org.id, { email, role: 'member' });

type Row = {
  name: string;
  request: (w: World) => Promise<{ path: string; method: string; body?: unknown }>;
  expect: Record<CallerKind, number>;
};

const signedIn = (ok: number, others: Partial<Record<CallerKind, number>> = {}): Record<CallerKind, number> => ({
  none: 401,
  pat: 401,
  instance: 403,
  member: ok,
  orgAdmin: ok,
  platformAdmin: ok,
  superadmin: ok,
  deletedUser: 401,
  ...others,
});
/** Readable by any organization member. */
const orgMember = signedIn(200, { platformAdmin: 403, superadmin: 403 });
/** Org admins only. */
const orgAdmin = signedIn(200, { member: 403, platformAdmin: 403, superadmin: 403 });

const rows: Row[] = [
  {
    name: 'GET /account/organizations',
    request: async () => ({ method: 'GET', path: '/account/organizations' }),
    expect: signedIn(200),
  },
  {
    name: 'POST /account/organizations',
    request: async () => ({
      method: 'POST',
      path: '/account/organizations',
      body: { name: 'New Org', slug: unique('neworg').toLowerCase() },
    }),
    // Members already belong to an organization: 409.
    expect: signedIn(200, { member: 409, orgAdmin: 409 }),
  },
  {
    name: 'GET /account/profile',
    request: async () => ({ method: 'GET', path: '/account/profile' }),
    expect: signedIn(200),
  },
  {
    name: 'PUT /account/profile',
    request: async () => ({ method: 'PUT', path: '/account/profile', body: { name: 'Renamed' } }),
    expect: signedIn(200),
  },
  {
    name: 'GET /account/api-keys',
    request: async () => ({ method: 'GET', path: '/account/api-keys' }),
    expect: orgMember,
  },
  {
    name: 'POST /account/api-keys',
    request: async () => ({ method: 'POST', path: '/account/api-keys', body: { name: 'edge-1' } }),
    expect: orgAdmin,
  },
  {
    name: 'PUT /account/api-keys',
    request: async (w) => ({ method: 'PUT', path: '/account/api-keys', body: { id: w.key.id } }),
    expect: orgAdmin,
  },
  {
    name: 'DELETE /account/api-keys',
    request: async (w) => ({ method: 'DELETE', path: '/account/api-keys', body: { id: w.key.id } }),
    expect: orgAdmin,
  },
  {
    name: 'GET /account/members',
    request: async () => ({ method: 'GET', path: '/account/members' }),
    expect: orgMember,
  },
  {
    name: 'GET /account/invitations',
    request: async () => ({ method: 'GET', path: '/account/invitations' }),
    expect: orgAdmin,
  },
  {
    name: 'POST /account/invitations',
    request: async () => ({
      method: 'POST',
      path: '/account/invitations',
      body: { email: `${unique('invitee')}@example.test`, role: 'member' },
    }),
    expect: orgAdmin,
  },
  {
    name: 'DELETE /account/invitations',
    request: async (w) => ({
      method: 'DELETE',
      path: '/account/invitations',
      body: { id: (await invite(w, `${unique('invitee')}@example.test`)).id },
    }),
    expect: orgAdmin,
  },
  {
    name: 'GET /account/invitations/received',
    request: async () => ({ method: 'GET', path: '/account/invitations/received' }),
    expect: signedIn(200),
  },
  {
    // Addressed to nobody among the callers: the same 404 for every signed-in caller.
    name: 'POST /account/invitations/accept',
    request: async (w) => ({
      method: 'POST',
      path: '/account/invitations/accept',
      body: { id: (await invite(w, `${unique('invitee')}@example.test`)).id },
    }),
    expect: signedIn(404),
  },
  {
    name: 'POST /account/invitations/decline',
    request: async (w) => ({
      method: 'POST',
      path: '/account/invitations/decline',
      body: { id: (await invite(w, `${unique('invitee')}@example.test`)).id },
    }),
    expect: signedIn(404),
  },
  {
    // The org admin is the last admin; platform admins here belong to no organization.
    name: 'POST /account/leave',
    request: async () => ({ method: 'POST', path: '/account/leave', body: {} }),
    expect: signedIn(200, { orgAdmin: 409, platformAdmin: 409, superadmin: 409 }),
  },
  {
    name: 'PUT /account/members',
    request: async (w) => ({ method: 'PUT', path: '/account/members', body: { user_id: w.member.id, role: 'admin' } }),
    expect: orgAdmin,
  },
  {
    name: 'DELETE /account/members',
    request: async (w) => ({ method: 'DELETE', path: '/account/members', body: { user_id: w.member.id } }),
    expect: orgAdmin,
  },
];

describe('account authorization matrix', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const got: Record<string, number> = {};
      for (const caller of CALLERS) {
        const w = await world();
        const req = await row.request(w);
        const res = await api(req.path, { method: req.method, body: req.body, token: w.tokens[caller] });
        got[caller] = res.status;
        if (res.status >= 400) {
          // Every refusal is a JSON error with a code and a message.
          expect(res.body, `${row.name} as ${caller}`).toMatchObject({
            code: expect.any(String),
            message: expect.any(String),
          });
        }
      }
      expect(got).toEqual(row.expect);
    });
  }

  it('a PAT is refused even when it belongs to a real, active token row', async () => {
    // The resolver refuses svp_ by prefix before any look-up; the matrix uses an unregistered one, this a registered one.
    const { insertPat } = await import('../account-admin-fixtures');
    const w = await world();
    const pat = await insertPat(w.orgAdmin, w.org.id, w.key.id);
    const res = await api('/account/api-keys', { token: pat.secret });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/mcp/i);
  });
});
