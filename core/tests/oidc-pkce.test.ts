/**
 * The browser's sign-in without a browser: the authorization-code flow with PKCE (S256, state,
 * nonce) against the real test provider as a public client, `resource` = Core's audience; the access
 * token it yields is accepted by Core, and so is the one from a refresh with the provider.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOidcProvider, type OidcFixture } from './fixtures/oidc';
import { browse } from './fixtures/oidc-browser';
import { freshDatabase, startCore, type TestCore } from './helpers';

const REDIRECT = 'http://localhost:4000/auth/callback';
let oidc: OidcFixture;
let t: TestCore;
let db: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  oidc = await startOidcProvider({ redirectUris: [REDIRECT] });
  db = await freshDatabase();
  t = await startCore(
    { oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience: oidc.audience, scopes: 'openid' } },
    db,
  );
});
afterAll(async () => {
  await t?.stop();
  await oidc?.close();
  await db?.drop();
});

it('PKCE sign-in with the provider yields an access token Core accepts, and refreshing it does too', async () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(8).toString('hex');
  const auth = new URL(`${oidc.issuer}/auth`);
  for (const [k, v] of Object.entries({
    client_id: oidc.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'openid email profile offline_access',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    nonce: randomBytes(8).toString('hex'),
    resource: oidc.audience,
    prompt: 'consent',
  }))
    auth.searchParams.set(k, v);
  const back = await browse(auth.toString(), REDIRECT, {
    login: { login: 'pkce-person@example.test', password: 'any' },
    consent: {},
  });
  expect(back.searchParams.get('state')).toBe(state);
  const code = back.searchParams.get('code');
  expect(code).toBeTruthy();

  const exchange = async (params: Record<string, string>) => {
    const res = await fetch(`${oidc.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: oidc.clientId, ...params }),
    });
    const json = (await res.json()) as any;
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  };
  const tokens = await exchange({
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    resource: oidc.audience,
  });
  expect(tokens.access_token.split('.')).toHaveLength(3);
  expect(tokens.refresh_token).toBeTruthy();

  const me = await t.call('GET', '/api/v1/auth/me', { token: tokens.access_token });
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ kind: 'oidc', role: 'readonly', user: { email: 'pkce-person@example.test' } });

  const refreshed = await exchange({
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    resource: oidc.audience,
  });
  const again = await t.call('GET', '/api/v1/auth/me', { token: refreshed.access_token });
  expect(again.status).toBe(200);
  expect(again.body.user.id).toBe(me.body.user.id);
});
