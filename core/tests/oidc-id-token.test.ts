/**
 * An ID token is never an access token, by any sign (issue 34): the real ID token the test provider's token
 * endpoint returns after a browser sign-in (a nonce; with prompt=login an auth_time) is refused by /auth/me
 * with 401 and provisions nobody, with and without CORE_OIDC_AUDIENCE; so is a header typ other than
 * at+jwt/JWT. The access token of the same sign-in is accepted.
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcFixture } from './fixtures/oidc';
import { signInWithCode } from './fixtures/oidc-browser';
import { corePerCase, TEMP_ADMIN, type TestCore } from './helpers';

const REDIRECT = 'http://localhost:4000/auth/callback';
let oidc: OidcFixture;
const cores = corePerCase();

beforeAll(async () => {
  oidc = await startOidcProvider({ redirectUris: [REDIRECT] });
});
afterAll(async () => {
  await cores.stopAll();
  await oidc?.close();
});

async function core(audience: string | null) {
  const t = await cores.start({
    temporaryAdmin: TEMP_ADMIN,
    oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience, scopes: 'openid' },
  });
  const admin = (await t.call('POST', '/api/v1/auth/login', { body: TEMP_ADMIN })).body.access_token as string;
  return { t, admin };
}
const me = (t: TestCore, token: string) => t.call('GET', '/api/v1/auth/me', { token });
const emails = async (t: TestCore, admin: string) =>
  ((await t.call('GET', '/api/v1/users', { token: admin })).body.users as { email: string }[]).map((u) => u.email);

const signIn = (login: string, params: Record<string, string | undefined>) =>
  signInWithCode({ issuer: oidc.issuer, clientId: oidc.clientId, redirect: REDIRECT, login, params });

describe.each([
  ['without CORE_OIDC_AUDIENCE', null],
  ['with CORE_OIDC_AUDIENCE', 'audience'],
] as const)('%s', (_name, audienceSetting) => {
  it('the ID token from the token endpoint is refused (nonce; auth_time) and provisions nobody', async () => {
    const { t, admin } = await core(audienceSetting ? oidc.audience : null);
    const tag = randomBytes(3).toString('hex');

    const withNonce = await signIn(`nonce-${tag}@example.test`, { nonce: randomBytes(8).toString('hex') });
    expect(decodeJwt(withNonce.id_token)).toMatchObject({ aud: oidc.clientId, nonce: expect.any(String) });
    const refused = await me(t, withNonce.id_token);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(audienceSetting ? /audience/ : /an ID token is not an access token/);

    // No nonce, but a fresh login: the ID token carries auth_time, its audience is the client.
    const fresh = await signIn(`authtime-${tag}@example.test`, { prompt: 'login consent', max_age: '0' });
    const claims = decodeJwt(fresh.id_token);
    expect(claims.nonce).toBeUndefined();
    expect(claims.auth_time).toEqual(expect.any(Number));
    expect((await me(t, fresh.id_token)).status).toBe(401);

    // Neither: no nonce asked, no fresh login. It carries no access-token claim (scope, client_id) either.
    const plain = await signIn(`plain-${tag}@example.test`, {});
    const plainClaims = decodeJwt(plain.id_token);
    expect(plainClaims.nonce ?? plainClaims.auth_time ?? plainClaims.at_hash).toBeUndefined();
    expect(decodeProtectedHeader(plain.id_token).typ).toBeUndefined();
    expect((await me(t, plain.id_token)).status).toBe(401);

    expect((await emails(t, admin)).filter((e) => e.includes(tag))).toEqual([]);
  });
});

it('a header typ other than at+jwt or JWT is refused; at+jwt, application/at+jwt, JWT and none pass', async () => {
  const { t } = await core(null);
  const person = { subject: 'typ-person' };
  const forged = (typ: string | null, claims: Record<string, unknown> = {}) =>
    oidc.forge(person, { audience: oidc.clientId, typ, claims });
  for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt', 'JWT', null])
    expect((await me(t, await forged(typ))).status, String(typ)).toBe(200);
  for (const typ of ['id+jwt', 'application/id_token+jwt', 'logout+jwt', 'JOSE']) {
    const res = await me(t, await forged(typ));
    expect(res.status, typ).toBe(401);
    expect(res.body.message).toMatch(/header typ/);
  }
  expect((await me(t, await forged('at+jwt', { nonce: 'n' }))).status).toBe(401);
  expect((await me(t, await forged('at+jwt', { auth_time: 1 }))).status).toBe(401);
  // Audience the client id, no typ at+jwt: an access-token claim must say what it is.
  const bare = await forged(null, { scope: undefined, client_id: undefined });
  const refused = await me(t, bare);
  expect(refused.status).toBe(401);
  expect(refused.body.message).toMatch(/no access-token claim/);
  expect((await me(t, await forged('at+jwt', { scope: undefined, client_id: undefined }))).status).toBe(200);
  expect((await me(t, await forged('JWT', { scope: undefined, client_id: undefined, scp: 'api' }))).status).toBe(200);
});

it('CORE_OIDC_AUDIENCE set to the client id itself is no API audience: the plain ID token is still refused', async () => {
  const { t } = await core(oidc.clientId);
  const tokens = await signIn(`client-aud-${randomBytes(3).toString('hex')}@example.test`, {});
  expect(decodeJwt(tokens.id_token).aud).toBe(oidc.clientId);
  const refused = await me(t, tokens.id_token);
  expect(refused.status).toBe(401);
  expect(refused.body.message).toMatch(/an ID token is not an access token/);
  // An access token for the client id that says what it is still passes.
  expect((await me(t, await oidc.forge({ subject: 'client-aud' }, { audience: oidc.clientId }))).status).toBe(200);
});

it('with CORE_OIDC_AUDIENCE the access token of the same kind of sign-in is accepted', async () => {
  const { t } = await core(oidc.audience);
  const tokens = await signIn(`access-${randomBytes(3).toString('hex')}@example.test`, {
    nonce: randomBytes(8).toString('hex'),
    resource: oidc.audience,
  });
  expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
  expect((await me(t, tokens.access_token)).status).toBe(200);
  expect((await me(t, tokens.id_token)).status).toBe(401);
});
