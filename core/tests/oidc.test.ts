/**
 * OIDC rules beyond the role matrix: the audience rule without CORE_OIDC_AUDIENCE (aud = client id or
 * azp = client id, as Keycloak issues them), a token for another API refused even with Core's azp,
 * OIDC configured in settings instead of the environment, and an unreachable provider (503, not 401).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcFixture } from './fixtures/oidc';
import { corePerCase, type TestCore } from './helpers';

const TEMP = { username: 'root', password: 'temporary admin password' };
let oidc: OidcFixture;
/** Each case its own Core on its own database. */
const cores = corePerCase();
const core = (overrides: Parameters<typeof cores.start>[0]) => cores.start({ temporaryAdmin: TEMP, ...overrides });
const me = (t: TestCore, token: string) => t.call('GET', '/api/v1/auth/me', { token });

beforeAll(async () => {
  oidc = await startOidcProvider();
});
afterAll(async () => {
  await cores.stopAll();
  await oidc?.close();
});

describe('audience', () => {
  it('without a configured audience: aud must contain the client id, or azp must equal it', async () => {
    const t = await core({ oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience: null, scopes: 'openid' } });
    const person = { subject: 'kc-user', email: 'kc@example.test' };
    expect((await me(t, await oidc.forge(person, { audience: oidc.clientId }))).status).toBe(200);
    expect((await me(t, await oidc.forge(person, { audience: 'account', azp: oidc.clientId }))).status).toBe(200);
    expect((await me(t, await oidc.forge(person, { audience: 'account' }))).status).toBe(401);
    expect((await me(t, await oidc.forge(person, { audience: 'account', azp: 'another-client' }))).status).toBe(401);
    // An ID token (its audience is the client too) is not an access token.
    expect((await me(t, await oidc.forge(person, { audience: oidc.clientId, claims: { at_hash: 'x' } }))).status).toBe(
      401,
    );
    expect((await me(t, await oidc.forge(person, { audience: oidc.clientId, claims: { typ: 'ID' } }))).status).toBe(
      401,
    );
    // A real token the provider issued for some other API.
    expect((await me(t, await oidc.mint(person, { resource: 'https://another-api.test' }))).status).toBe(401);
  });

  it("with an audience configured: a token for another API is refused even if its azp is Core's client", async () => {
    const t = await core({
      oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience: oidc.audience, scopes: 'openid' },
    });
    const person = { subject: 'api-user' };
    expect((await me(t, await oidc.forge(person, { audience: oidc.audience }))).status).toBe(200);
    expect(
      (await me(t, await oidc.forge(person, { audience: 'https://another-api.test', azp: oidc.clientId }))).status,
    ).toBe(401);
    expect((await me(t, await oidc.forge(person, { audience: oidc.clientId }))).status).toBe(401);
    const settings = await t.call('GET', '/api/v1/settings', { token: await oidc.forge(person) });
    expect(settings.body.oidc).toMatchObject({
      source: 'environment',
      issuer: oidc.issuer,
      client_id: oidc.clientId,
      audience: oidc.audience,
    });
  });
});

describe('OIDC in settings', () => {
  it('an admin configures the provider; it is used at once; clearing it refuses its tokens', async () => {
    const t = await core({ oidc: null });
    const temp = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token;
    expect((await t.call('GET', '/api/v1/auth/config')).body).toEqual({ oidc: null, local_login: true });
    const token = await oidc.mint({ subject: 'late', email: 'late@example.test' });
    expect((await me(t, token)).status).toBe(401);

    const bad = await t.call('PUT', '/api/v1/settings/oidc', {
      token: temp,
      body: { issuer: 'not a url', client_id: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Invalid input: issuer:/);
    const legacy = await t.call('PUT', '/api/v1/settings/oidc', {
      token: temp,
      body: { issuer: oidc.issuer, client_id: oidc.clientId, default_role: 'operator' },
    });
    expect(legacy.status).toBe(400);
    expect(legacy.body.message).toMatch(/needs admin/);

    const put = await t.call('PUT', '/api/v1/settings/oidc', {
      token: temp,
      body: { issuer: oidc.issuer, client_id: oidc.clientId, audience: oidc.audience },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ source: 'settings', issuer: oidc.issuer, default_role: 'readonly' });
    expect((await t.call('GET', '/api/v1/auth/config')).body.oidc).toMatchObject({
      issuer: oidc.issuer,
      client_id: oidc.clientId,
      audience: oidc.audience,
    });
    const signedIn = await me(t, token);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ kind: 'oidc', role: 'readonly' });

    const cleared = await t.call('DELETE', '/api/v1/settings/oidc', { token: temp });
    expect(cleared.body.source).toBe('none');
    expect((await me(t, token)).status).toBe(401);
  });

  it('an unreachable provider is a 503 (try again), not a 401', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const t = await core({
      oidc: { issuer: `http://127.0.0.1:${port}`, clientId: 'x', audience: null, scopes: 'openid' },
    });
    const res = await me(t, await oidc.forge({ subject: 'someone' }));
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    // Core's own credentials keep working.
    const login = await t.call('POST', '/api/v1/auth/login', { body: TEMP });
    expect((await me(t, login.body.access_token)).status).toBe(200);
  });
});
