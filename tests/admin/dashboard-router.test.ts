/** The dashboard-only procedures (router key `dashboard`): API access tokens and the admin by-id reads. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createCaller } from '../../server/api/root';
import { createContext } from '../../server/api/trpc';
import { sessionCookieName } from '../../server/auth/credentials';
import { getDb } from '../../server/db/client';
import { auditLog, users } from '../../server/db/schema';
import { verifyJwt } from '../../server/domain/jwt';
import { api, createCategory, createKey, createOrg, createTemplate, createUser } from '../helpers';

/** The procedures as a REST or tRPC request with that bearer token reaches them. */
async function callerFor(token: string | null) {
  return createCaller(await createContext(new Headers(token ? { authorization: `Bearer ${token}` } : {})));
}

/** The procedures as the dashboard reaches them: the session cookie, from a page of the Hub's origin. */
async function dashboardCaller(token: string | null, headers: Record<string, string> = { origin: 'http://hub.test' }) {
  const cookie: Record<string, string> = token ? { cookie: `other=1; ${sessionCookieName()}=${token}` } : {};
  return createCaller(await createContext(new Headers({ ...cookie, ...headers }), { allowSessionCookie: true }));
}

describe('dashboard.issueApiToken', () => {
  it('issues a short-lived Hub JWT of the caller that works as a REST bearer token, and audits it', async () => {
    const user = await createUser({ name: 'Script Writer' });
    const caller = await dashboardCaller(user.token);
    const issued = await caller.dashboard.issueApiToken({ ttl_seconds: 900 });
    const claims = await verifyJwt(issued.token);
    expect(claims.sub).toBe(user.id);
    expect(claims.exp! - claims.iat!).toBe(900);
    const profile = await api('/account/profile', { token: issued.token });
    expect(profile.status).toBe(200);
    expect(profile.body.profile.email).toBe(user.email);

    const db = await getDb();
    const audit = await db.select().from(auditLog).where(eq(auditLog.action, 'api_token.issue'));
    expect(audit.some((a) => a.actorId === user.id && (a.details as any).ttl_seconds === 900)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(issued.token);
  });

  it('refuses lifetimes outside 60 s … 8 h, and anonymous or instance callers', async () => {
    const user = await createUser();
    const caller = await dashboardCaller(user.token);
    await expect(caller.dashboard.issueApiToken({ ttl_seconds: 30 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(caller.dashboard.issueApiToken({ ttl_seconds: 9 * 3600 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect((await dashboardCaller(null)).dashboard.issueApiToken({ ttl_seconds: 900 })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const org = await createOrg({ admin: user });
    const key = await createKey(org.id);
    await expect((await callerFor(key.secret)).dashboard.issueApiToken({ ttl_seconds: 900 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('needs a browser session: a bearer token (a script token included) cannot mint another, nor another origin', async () => {
    const user = await createUser();
    const scriptToken = (await (await dashboardCaller(user.token)).dashboard.issueApiToken({ ttl_seconds: 900 })).token;
    for (const token of [user.token, scriptToken]) {
      await expect((await callerFor(token)).dashboard.issueApiToken({ ttl_seconds: 8 * 3600 })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining('a bearer token cannot'),
      });
    }
    // The cookie alone is not enough: a page of another origin, or no sign of the origin at all.
    for (const headers of [{ origin: 'https://evil.example' }, {}, { 'sec-fetch-site': 'cross-site' }] as Record<
      string,
      string
    >[]) {
      await expect(
        (await dashboardCaller(user.token, headers)).dashboard.issueApiToken({ ttl_seconds: 900 }),
      ).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
    }
    const viaFetchMetadata = await dashboardCaller(user.token, { 'sec-fetch-site': 'same-origin' });
    expect((await viaFetchMetadata.dashboard.issueApiToken({ ttl_seconds: 900 })).token).toBeTruthy();
    // The bearer token still works for everything else.
    expect((await (await callerFor(scriptToken)).account.getProfile({})).profile.email).toBe(user.email);
  });

  it('a token of a user who is then deleted stops working', async () => {
    const user = await createUser();
    const issued = await (await dashboardCaller(user.token)).dashboard.issueApiToken({ ttl_seconds: 3600 });
    const db = await getDb();
    await db.delete(users).where(eq(users.id, user.id));
    expect((await api('/account/profile', { token: issued.token })).status).toBe(401);
  });
});

describe('dashboard admin reads', () => {
  it('adminTemplate returns the admin fields (credentials masked) to platform admins only', async () => {
    const admin = await createUser({ role: 'admin' });
    const plain = await createUser();
    const category = await createCategory({ isPrivate: true });
    const template = await createTemplate({
      categoryId: category.id,
      registryUrl: 'https://registry.example.com',
      command: ['serve'],
    });
    const got = await (await callerFor(admin.token)).dashboard.adminTemplate({ id: template.id });
    expect(got.template).toMatchObject({
      id: template.id,
      registry_url: 'https://registry.example.com',
      command: ['serve'],
      registry_credentials: null,
    });
    await expect((await callerFor(plain.token)).dashboard.adminTemplate({ id: template.id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(
      (await callerFor(admin.token)).dashboard.adminTemplate({ id: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('adminOrganization returns one organization to platform admins only', async () => {
    const admin = await createUser({ role: 'superadmin' });
    const owner = await createUser();
    const org = await createOrg({ admin: owner, name: 'Acme' });
    const got = await (await callerFor(admin.token)).dashboard.adminOrganization({ id: org.id });
    expect(got.organization).toMatchObject({ id: org.id, name: 'Acme', status: 'active', tier: 'free' });
    await expect((await callerFor(owner.token)).dashboard.adminOrganization({ id: org.id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});
