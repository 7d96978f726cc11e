/**
 * The web frontend's refresh token in an HttpOnly cookie (issue 37): set on login and refresh when asked for
 * (X-Core-Session: cookie), used alone to refresh and to sign out, refused cross-origin and without the header,
 * cleared and revoked by sign-out. API clients that send refresh_token in the body are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startCore, type TestCore } from './helpers';

const TEMP = { username: 'Cookie Admin', password: 'temporary admin password' };
const COOKIE_MODE = { 'x-core-session': 'cookie' };
let t: TestCore;
let db: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  db = await freshDatabase();
  t = await startCore({ temporaryAdmin: TEMP }, db);
});
afterAll(async () => {
  await t?.stop();
  await db?.drop();
});

/** The core_refresh Set-Cookie of an answer: its value and attributes. */
function refreshCookie(headers: Headers) {
  const line = headers.getSetCookie().find((c) => c.startsWith('core_refresh='));
  if (!line) return null;
  const [pair = '', ...attrs] = line.split(';').map((s) => s.trim());
  return { value: pair.slice('core_refresh='.length), attrs: attrs.map((a) => a.toLowerCase()) };
}

const signIn = async () => {
  const res = await t.call('POST', '/api/v1/auth/login', { body: TEMP, headers: COOKIE_MODE });
  expect(res.status).toBe(200);
  return { res, cookie: refreshCookie(res.headers)! };
};

const refreshWith = (value: string, headers: Record<string, string> = COOKIE_MODE) =>
  t.call('POST', '/api/v1/auth/refresh', { body: {}, headers: { ...headers, cookie: `core_refresh=${value}` } });

describe('the refresh cookie', () => {
  it('is set HttpOnly, SameSite=Strict, on the auth path, without Secure on plain http; the body holds no refresh token', async () => {
    const { res, cookie } = await signIn();
    expect(cookie.value).toMatch(/^[\w-]{40,}$/);
    expect(cookie.attrs).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/api/v1/auth']));
    expect(cookie.attrs).not.toContain('secure');
    expect(res.body.refresh_token).toBeUndefined();
    expect(res.body.access_token).toEqual(expect.any(String));
  });

  it('alone refreshes the session, rotating the cookie; the rotated cookie is refused and ends the session', async () => {
    const { cookie } = await signIn();
    const next = await refreshWith(cookie.value);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).toBeUndefined();
    const rotated = refreshCookie(next.headers)!;
    expect(rotated.value).not.toBe(cookie.value);
    const me = await t.call('GET', '/api/v1/auth/me', { token: next.body.access_token });
    expect(me.body.user.email).toBe(TEMP.username);

    // The old value again: refused, the browser told to drop it, and the whole session is over.
    const reused = await refreshWith(cookie.value);
    expect(reused.status).toBe(401);
    expect(refreshCookie(reused.headers)?.attrs).toContain('max-age=0');
    expect((await refreshWith(rotated.value)).status).toBe(401);
  });

  it('is refused cross-origin, cross-site and without the X-Core-Session header', async () => {
    const { cookie } = await signIn();
    const evil = await refreshWith(cookie.value, { ...COOKIE_MODE, origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body).toMatchObject({ code: 'FORBIDDEN', request_id: expect.any(String) });
    expect((await refreshWith(cookie.value, { ...COOKIE_MODE, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const bare = await refreshWith(cookie.value, {});
    expect(bare.status).toBe(400);
    expect(bare.body.message).toMatch(/refresh_token/);
    // None of the refusals used the cookie: it still works from Core's own page.
    expect((await refreshWith(cookie.value, { ...COOKIE_MODE, origin: t.url })).status).toBe(200);
  });

  it('without a cookie, refresh answers 401 and logout 204', async () => {
    const res = await t.call('POST', '/api/v1/auth/refresh', { body: {}, headers: COOKIE_MODE });
    expect(res.status).toBe(401);
    expect((await t.call('POST', '/api/v1/auth/logout', { body: {}, headers: COOKIE_MODE })).status).toBe(204);
  });

  it('sign-out with the cookie clears it and revokes the session on the server', async () => {
    const { cookie } = await signIn();
    const out = await t.call('POST', '/api/v1/auth/logout', {
      body: {},
      headers: { ...COOKIE_MODE, cookie: `core_refresh=${cookie.value}` },
    });
    expect(out.status).toBe(204);
    expect(refreshCookie(out.headers)?.attrs).toContain('max-age=0');
    expect((await refreshWith(cookie.value)).status).toBe(401);
  });

  it('is not set for API clients, which keep the refresh token in the body', async () => {
    const res = await t.call('POST', '/api/v1/auth/login', { body: TEMP });
    expect(refreshCookie(res.headers)).toBeNull();
    const next = await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: res.body.refresh_token } });
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).toEqual(expect.any(String));
    expect(refreshCookie(next.headers)).toBeNull();
  });

  it('is Secure when Core is served over https', async () => {
    const secure = await startCore({ url: 'https://core.test', temporaryAdmin: TEMP });
    try {
      const res = await secure.call('POST', '/api/v1/auth/login', { body: TEMP, headers: COOKIE_MODE });
      expect(refreshCookie(res.headers)?.attrs).toContain('secure');
    } finally {
      await secure.stop();
    }
  });
});
