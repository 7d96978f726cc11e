/**
 * The role matrix: every endpoint × every kind of caller → the expected status, against the real
 * HTTP server and a real OpenID provider on loopback. Admins may do everything; readonly callers
 * may read everything except secret values; every invalid credential is a 401, never anonymous;
 * public endpoints ignore credentials.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineTokens } from '../src/db/schema';
import { startOidcProvider, type OidcFixture } from './fixtures/oidc';
import { expectErrorShape, freshDatabase, localUser, startCore, type TestCore } from './helpers';

const TEMP = { username: 'setup-admin', password: 'temporary admin password' };
let t: TestCore;
let oidc: OidcFixture;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let temp: string;
const creds: Record<string, string | undefined> = {};

const rand = () => randomBytes(4).toString('hex');

async function call(method: string, path: string, token: string | undefined, body?: unknown) {
  return t.call(method, path, { token, body });
}

async function newMachineToken(role: 'admin' | 'readonly', expires_in_days: number | null = null) {
  const res = await call('POST', '/api/v1/tokens', temp, { name: `t-${rand()}`, role, expires_in_days });
  expect(res.status).toBe(201);
  return res.body as { id: string; token: string };
}

beforeAll(async () => {
  oidc = await startOidcProvider();
  db = await freshDatabase();
  t = await startCore(
    {
      temporaryAdmin: TEMP,
      oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience: oidc.audience, scopes: 'openid' },
      oidcAdminGroups: ['core-admins'],
      oidcDefaultRole: 'readonly',
    },
    db,
  );
  const login = await call('POST', '/api/v1/auth/login', undefined, TEMP);
  temp = login.body.access_token;

  creds['no credential'] = undefined;
  creds['garbage'] = 'garbage';
  creds['local admin'] = (await localUser(t, temp, 'admin')).token;
  creds['local readonly'] = (await localUser(t, temp, 'readonly')).token;
  creds['temporary admin'] = temp;
  creds['admin machine token'] = (await newMachineToken('admin')).token;
  creds['readonly machine token'] = (await newMachineToken('readonly')).token;

  const expired = await newMachineToken('admin', 1);
  await t.core.db
    .update(machineTokens)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(machineTokens.id, expired.id));
  creds['expired machine token'] = expired.token;
  const revoked = await newMachineToken('admin');
  expect((await call('DELETE', `/api/v1/tokens/${revoked.id}`, temp)).status).toBe(204);
  creds['revoked machine token'] = revoked.token;
  const reissued = await newMachineToken('admin');
  expect((await call('POST', `/api/v1/tokens/${reissued.id}/reissue`, temp)).status).toBe(200);
  creds["re-issued token's old secret"] = reissued.token;

  creds['OIDC admin (by group)'] = await oidc.mint({
    subject: 'oidc-admin',
    email: 'oidc-admin@example.test',
    groups: ['core-admins'],
  });
  creds['OIDC readonly'] = await oidc.mint({
    subject: 'oidc-reader',
    email: 'oidc-reader@example.test',
    groups: ['staff'],
  });
  creds['OIDC wrong issuer'] = await oidc.forge(
    { subject: 'oidc-admin', groups: ['core-admins'] },
    { issuer: 'http://127.0.0.1:9/elsewhere' },
  );
  creds['OIDC wrong audience'] = await oidc.mint(
    { subject: 'oidc-admin', groups: ['core-admins'] },
    { resource: 'https://another-api.test' },
  );
  creds['OIDC expired'] = await oidc.forge(
    { subject: 'oidc-admin', groups: ['core-admins'] },
    { expiresInSeconds: -120 },
  );
  creds['OIDC bad signature'] = await oidc.forge({ subject: 'oidc-admin', groups: ['core-admins'] }, { key: 'other' });
});

afterAll(async () => {
  await t?.stop();
  await oidc?.close();
  await db?.drop();
});

type Access = 'public' | 'read' | 'admin' | 'admin-conflict';
interface Endpoint {
  method: string;
  /** Builds a fresh target (victims for deletes) with the temporary admin, and the request. */
  prepare(): Promise<{ path: string; body?: unknown }>;
  access: Access;
  okStatus: number;
}

const victimUser = async () => {
  const res = await call('POST', '/api/v1/users', temp, {
    email: `victim-${rand()}@example.test`,
    password: 'victim password 123',
    role: 'readonly',
  });
  return res.body.id as string;
};
const victimToken = async () => (await newMachineToken('readonly')).id;
const victimSecret = async () => {
  const name = `victim-${rand()}`;
  await call('PUT', `/api/v1/secrets/${name}`, temp, { value: 'v' });
  return name;
};

const endpoints: Record<string, Endpoint> = {
  'GET /auth/config': {
    method: 'GET',
    prepare: async () => ({ path: '/api/v1/auth/config' }),
    access: 'public',
    okStatus: 200,
  },
  'GET /openapi.json': {
    method: 'GET',
    prepare: async () => ({ path: '/api/v1/openapi.json' }),
    access: 'public',
    okStatus: 200,
  },
  'GET /auth/me': { method: 'GET', prepare: async () => ({ path: '/api/v1/auth/me' }), access: 'read', okStatus: 200 },
  'GET /users': { method: 'GET', prepare: async () => ({ path: '/api/v1/users' }), access: 'read', okStatus: 200 },
  'GET /users/{id}': {
    method: 'GET',
    prepare: async () => ({ path: `/api/v1/users/${await victimUser()}` }),
    access: 'read',
    okStatus: 200,
  },
  'POST /users': {
    method: 'POST',
    prepare: async () => ({
      path: '/api/v1/users',
      body: { email: `new-${rand()}@example.test`, password: 'a good long password', role: 'readonly' },
    }),
    access: 'admin',
    okStatus: 201,
  },
  'PUT /users/{id}': {
    method: 'PUT',
    prepare: async () => ({ path: `/api/v1/users/${await victimUser()}`, body: { name: 'Renamed' } }),
    access: 'admin',
    okStatus: 200,
  },
  'DELETE /users/{id}': {
    method: 'DELETE',
    prepare: async () => ({ path: `/api/v1/users/${await victimUser()}` }),
    access: 'admin',
    okStatus: 204,
  },
  'GET /tokens': { method: 'GET', prepare: async () => ({ path: '/api/v1/tokens' }), access: 'read', okStatus: 200 },
  'POST /tokens': {
    method: 'POST',
    prepare: async () => ({ path: '/api/v1/tokens', body: { name: 'matrix', role: 'readonly' } }),
    access: 'admin',
    okStatus: 201,
  },
  'POST /tokens/{id}/reissue': {
    method: 'POST',
    prepare: async () => ({ path: `/api/v1/tokens/${await victimToken()}/reissue` }),
    access: 'admin',
    okStatus: 200,
  },
  'DELETE /tokens/{id}': {
    method: 'DELETE',
    prepare: async () => ({ path: `/api/v1/tokens/${await victimToken()}` }),
    access: 'admin',
    okStatus: 204,
  },
  'GET /tokens/{id}/audit': {
    method: 'GET',
    prepare: async () => ({ path: `/api/v1/tokens/${await victimToken()}/audit` }),
    access: 'read',
    okStatus: 200,
  },
  'GET /secrets': { method: 'GET', prepare: async () => ({ path: '/api/v1/secrets' }), access: 'read', okStatus: 200 },
  'GET /secrets/{name}': {
    method: 'GET',
    prepare: async () => ({ path: `/api/v1/secrets/${await victimSecret()}` }),
    access: 'admin',
    okStatus: 200,
  },
  'PUT /secrets/{name}': {
    method: 'PUT',
    prepare: async () => ({ path: `/api/v1/secrets/s-${rand()}`, body: { value: 'x' } }),
    access: 'admin',
    okStatus: 200,
  },
  'DELETE /secrets/{name}': {
    method: 'DELETE',
    prepare: async () => ({ path: `/api/v1/secrets/${await victimSecret()}` }),
    access: 'admin',
    okStatus: 204,
  },
  'GET /settings': {
    method: 'GET',
    prepare: async () => ({ path: '/api/v1/settings' }),
    access: 'read',
    okStatus: 200,
  },
  // OIDC comes from the environment here, so an admin's change is a conflict (409), a readonly one's a 403.
  'PUT /settings/oidc': {
    method: 'PUT',
    prepare: async () => ({
      path: '/api/v1/settings/oidc',
      body: { issuer: 'https://idp.example.test', client_id: 'x' },
    }),
    access: 'admin-conflict',
    okStatus: 409,
  },
  'DELETE /settings/oidc': {
    method: 'DELETE',
    prepare: async () => ({ path: '/api/v1/settings/oidc' }),
    access: 'admin-conflict',
    okStatus: 409,
  },
};

type CallerClass = 'invalid' | 'admin' | 'readonly';
const callers: Record<string, CallerClass> = {
  'no credential': 'invalid',
  garbage: 'invalid',
  'local admin': 'admin',
  'local readonly': 'readonly',
  'temporary admin': 'admin',
  'admin machine token': 'admin',
  'readonly machine token': 'readonly',
  'expired machine token': 'invalid',
  'revoked machine token': 'invalid',
  "re-issued token's old secret": 'invalid',
  'OIDC admin (by group)': 'admin',
  'OIDC readonly': 'readonly',
  'OIDC wrong issuer': 'invalid',
  'OIDC wrong audience': 'invalid',
  'OIDC expired': 'invalid',
  'OIDC bad signature': 'invalid',
};

function expected(access: Access, who: CallerClass, ok: number): number {
  if (access === 'public') return ok;
  if (who === 'invalid') return 401;
  if (access === 'read' || who === 'admin') return ok;
  return 403;
}

describe.each(Object.entries(callers))('%s', (name, who) => {
  it('gets the expected status from every endpoint', async () => {
    const token = creds[name];
    const got: Record<string, number> = {};
    const want: Record<string, number> = {};
    for (const [label, e] of Object.entries(endpoints)) {
      const { path, body } = await e.prepare();
      const res = await call(e.method, path, token, body);
      got[label] = res.status;
      want[label] = expected(e.access, who, e.okStatus);
      if (res.status === 401) expect(res.headers.get('www-authenticate'), label).toMatch(/^Bearer/);
      if (res.status >= 400) expectErrorShape(res, label);
      if (name === 'temporary admin' && e.access !== 'public')
        expect(res.headers.get('x-core-warning'), label).toMatch(/SVC_TEMP_ADMIN_USERNAME/);
    }
    expect(got).toEqual(want);
  });
});

describe('who the caller is', () => {
  it('GET /auth/me describes each valid kind of credential', async () => {
    const me = async (label: string) => (await call('GET', '/api/v1/auth/me', creds[label])).body;
    expect(await me('local admin')).toMatchObject({ kind: 'local', role: 'admin', temporary: false, token_id: null });
    expect(await me('local readonly')).toMatchObject({ kind: 'local', role: 'readonly', temporary: false });
    expect(await me('temporary admin')).toMatchObject({
      kind: 'temporary_admin',
      role: 'admin',
      temporary: true,
      user: { id: null, email: TEMP.username },
    });
    expect(await me('readonly machine token')).toMatchObject({
      kind: 'machine_token',
      role: 'readonly',
      temporary: false,
      user: null,
      token_id: expect.any(String),
    });
    expect(await me('OIDC admin (by group)')).toMatchObject({
      kind: 'oidc',
      role: 'admin',
      user: { email: 'oidc-admin@example.test' },
    });
    expect(await me('OIDC readonly')).toMatchObject({
      kind: 'oidc',
      role: 'readonly',
      user: { email: 'oidc-reader@example.test' },
    });
  });

  it('readonly is refused a secret value with a message saying admin is required, but lists secrets', async () => {
    const name = await victimSecret();
    for (const label of ['local readonly', 'readonly machine token', 'OIDC readonly']) {
      const res = await call('GET', `/api/v1/secrets/${name}`, creds[label]);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('reading a secret value requires admin');
      const list = await call('GET', '/api/v1/secrets', creds[label]);
      expect(list.body.secrets.map((s: { name: string }) => s.name)).toContain(name);
      expect(JSON.stringify(list.body)).not.toContain('"value"');
    }
  });

  it('with an audience configured, an opaque OIDC token is refused, naming the audience rule', async () => {
    const opaque = await oidc.mint({ subject: 'opaque-reader', email: 'opaque@example.test' }, { resource: null });
    expect(opaque.split('.').length).not.toBe(3);
    const me = await call('GET', '/api/v1/auth/me', opaque);
    expect(me.status).toBe(401);
    expect(me.body.message).toMatch(/opaque access tokens are not accepted: with CORE_OIDC_AUDIENCE/);
  });
});
