/**
 * Opaque access tokens are bound to Core: against the real oidc-provider (introspection advertised in its
 * discovery), a token the provider issued to another application for the same person never signs them in.
 * - no setting: opaque tokens refused, the 401 and the sign-in page name the missing setting;
 * - CORE_OIDC_INTROSPECTION_CLIENT_ID/SECRET: introspection (RFC 7662) accepts only tokens of Core's client;
 * - CORE_OIDC_ACCEPT_USERINFO_TOKENS=true: the operator's opt-in (any application's token), shown in settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreConfig } from '../src/config';
import { INTROSPECTION_CLIENT, OTHER_CLIENT_ID, startOidcProvider, type OidcFixture } from './fixtures/oidc';
import { corePerCase, type TestCore } from './helpers';

const TEMP = { username: 'root', password: 'temporary admin password' };
let oidc: OidcFixture;
const cores = corePerCase();

const core = (overrides: Partial<CoreConfig>) =>
  cores.start({
    temporaryAdmin: TEMP,
    oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience: null, scopes: 'openid' },
    ...overrides,
  });
const me = (t: TestCore, token: string) => t.call('GET', '/api/v1/auth/me', { token });

beforeAll(async () => {
  oidc = await startOidcProvider();
});
afterAll(async () => {
  await cores.stopAll();
  await oidc?.close();
});

describe('opaque access tokens', () => {
  it('by default: refused, and the 401 and the sign-in page say which setting is missing', async () => {
    const t = await core({});
    const token = await oidc.mint({ subject: 'ada', email: 'ada@example.test' }, { resource: null });
    const res = await me(t, token);
    expect(res.status).toBe(401);
    const parts = [
      'opaque access tokens are not accepted',
      'set CORE_OIDC_INTROSPECTION_CLIENT_ID and CORE_OIDC_INTROSPECTION_CLIENT_SECRET',
      'CORE_OIDC_ACCEPT_USERINFO_TOKENS=true',
    ];
    expect(res.body.message).toMatch(new RegExp(parts.join('.*')));
    const config = (await t.call('GET', '/api/v1/auth/config')).body.oidc;
    expect(config).toMatchObject({
      token_policy: 'jwt_only',
      setup_note: expect.stringMatching(/CORE_OIDC_AUDIENCE.*CORE_OIDC_ACCEPT_USERINFO_TOKENS=true/),
    });
    // Nobody was provisioned from the refused token.
    const admin = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token;
    expect((await t.call('GET', '/api/v1/users', { token: admin })).body.pagination.total).toBe(0);
  });

  it('with introspection: Core’s own client’s token signs in; another application’s token for the same person does not', async () => {
    const t = await core({ oidcIntrospection: INTROSPECTION_CLIENT });
    const person = { subject: 'grace', email: 'grace@example.test' };
    const mine = await oidc.mint(person, { resource: null });
    const ok = await me(t, mine);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ kind: 'oidc', user: { email: 'grace@example.test' } });

    const foreign = await oidc.mint(person, { resource: null, clientId: OTHER_CLIENT_ID });
    const refused = await me(t, foreign);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/issued it to another application/);
    expect((await me(t, 'not-a-real-token-at-all')).status).toBe(401);

    const settings = (await t.call('GET', '/api/v1/settings', { token: mine })).body.oidc;
    expect(settings).toMatchObject({
      token_policy: 'introspection',
      introspection_client_id: INTROSPECTION_CLIENT.clientId,
      accept_userinfo_tokens: false,
    });
    expect(JSON.stringify(settings)).not.toContain(INTROSPECTION_CLIENT.clientSecret);
  });

  it('with a wrong introspection secret: 503 saying to check the setting, never a sign-in', async () => {
    const t = await core({ oidcIntrospection: { clientId: INTROSPECTION_CLIENT.clientId, clientSecret: 'wrong' } });
    const res = await me(t, await oidc.mint({ subject: 'hal' }, { resource: null }));
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/CORE_OIDC_INTROSPECTION_CLIENT_ID\/SECRET/);
  });

  it('with CORE_OIDC_ACCEPT_USERINFO_TOKENS=true: accepted (any application’s), and the settings page says what it means', async () => {
    const t = await core({ oidcAcceptUserinfoTokens: true });
    const foreign = await oidc.mint(
      { subject: 'linus', email: 'linus@example.test' },
      { resource: null, clientId: OTHER_CLIENT_ID },
    );
    const res = await me(t, foreign);
    expect(res.status).toBe(200);
    const settings = (await t.call('GET', '/api/v1/settings', { token: foreign })).body.oidc;
    expect(settings).toMatchObject({ token_policy: 'userinfo', accept_userinfo_tokens: true });
    expect(settings.token_policy_description).toMatch(
      /any token that provider issued to any application for a person signs them in/,
    );
    expect((await t.call('GET', '/api/v1/auth/config')).body.oidc.setup_note).toBeNull();
  });

  it('with an audience: only JWTs for it, opaque refused even with the userinfo opt-in', async () => {
    const t = await core({
      oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience: oidc.audience, scopes: 'openid' },
      oidcAcceptUserinfoTokens: true,
    });
    expect((await me(t, await oidc.mint({ subject: 'jwt-user' }))).status).toBe(200);
    const res = await me(t, await oidc.mint({ subject: 'jwt-user' }, { resource: null }));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/CORE_OIDC_AUDIENCE/);
  });
});
