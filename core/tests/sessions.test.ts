/** Local sign-in: login, refresh rotation with reuse detection, logout, the brute-force limit. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, freshDatabase, localUser, startCore, type TestCore } from './helpers';

const TEMP = { username: 'Boot Admin', password: 'temporary admin password' };
let t: TestCore;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let temp: string;

const login = (username: string, password: string, headers?: Record<string, string>) =>
  t.call('POST', '/api/v1/auth/login', { body: { username, password }, headers });

beforeAll(async () => {
  db = await freshDatabase();
  t = await startCore({ temporaryAdmin: TEMP }, db);
  temp = (await login(TEMP.username, TEMP.password)).body.access_token;
});
afterAll(async () => {
  await t?.stop();
  await db?.drop();
});

describe('login', () => {
  it('answers a local user with a short-lived access token, a refresh token and the user', async () => {
    const u = await localUser(t, temp, 'readonly', 'Reader@Example.test');
    const res = await login('reader@example.test', ADMIN_PASSWORD); // emails match case-insensitively
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
      user: { id: u.id, email: 'Reader@Example.test', name: '', role: 'readonly', kind: 'local' },
      device_token: expect.any(String),
    });
    expect(res.headers.get('x-core-warning')).toBeNull();
  });

  it('refuses an unknown user and a wrong password with the same answer', async () => {
    await localUser(t, temp, 'admin', 'known@example.test');
    const unknown = await login('nobody@example.test', 'whatever password');
    const wrong = await login('known@example.test', 'wrong password!!');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect({ ...unknown.body, request_id: 'x' }).toEqual({ ...wrong.body, request_id: 'x' });
    expect(unknown.body.code).toBe('UNAUTHORIZED');
  });

  it('the temporary admin needs its exact username', async () => {
    expect((await login(TEMP.username.toLowerCase(), TEMP.password)).status).toBe(401);
    const ok = await login(TEMP.username, TEMP.password);
    expect(ok.status).toBe(200);
    expect(ok.body.user).toEqual({
      id: null,
      email: TEMP.username,
      name: TEMP.username,
      role: 'admin',
      kind: 'temporary_admin',
    });
    expect(ok.headers.get('x-core-warning')).toMatch(/remove/);
  });

  it('validates the body', async () => {
    const res = await t.call('POST', '/api/v1/auth/login', { body: { username: 'a' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/password/);
    const extra = await t.call('POST', '/api/v1/auth/login', {
      body: { username: 'a', password: 'b', remember: true },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toMatch(/unknown field: remember/);
  });

  it('ignores credentials on public endpoints', async () => {
    const res = await t.call('POST', '/api/v1/auth/login', {
      body: { username: TEMP.username, password: TEMP.password },
      token: 'garbage',
    });
    expect(res.status).toBe(200);
  });
});

describe('brute-force limit', () => {
  it('refuses the 6th attempt within 15 minutes for one username, even with the right password, with Retry-After', async () => {
    const u = await localUser(t, temp, 'readonly', 'target@example.test');
    for (let i = 0; i < 5; i++) expect((await login(u.email, `wrong password ${i}`)).status).toBe(401);
    const sixth = await login(u.email, ADMIN_PASSWORD);
    expect(sixth.status).toBe(429);
    expect(sixth.body.code).toBe('TOO_MANY_REQUESTS');
    const retryAfter = Number(sixth.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(850);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Another username from the same address is not affected.
    const other = await localUser(t, temp, 'readonly');
    expect((await login(other.email, ADMIN_PASSWORD)).status).toBe(200);
  });

  it('counts unknown usernames too, and holds under parallel attempts', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login('ghost@example.test', `guess number ${i}`)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('a success clears the count', async () => {
    const u = await localUser(t, temp, 'readonly');
    for (let i = 0; i < 4; i++) await login(u.email, 'wrong password x');
    expect((await login(u.email, ADMIN_PASSWORD)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login(u.email, 'wrong password y')).status).toBe(401);
    expect((await login(u.email, ADMIN_PASSWORD)).status).toBe(200);
  });
});

describe('password spraying', () => {
  it('one address failing for 50 different usernames within the window is refused further attempts', async () => {
    const own = await freshDatabase();
    const other = await startCore({ temporaryAdmin: TEMP }, own);
    try {
      const attempt = (username: string) =>
        other.call('POST', '/api/v1/auth/login', { body: { username, password: 'spray password 1' } });
      for (let i = 0; i < 50; i++) expect((await attempt(`user${i}@example.test`)).status).toBe(401);
      const next = await attempt('fresh-name@example.test');
      expect(next.status).toBe(429);
      expect(next.body.message).toMatch(/from this address/);
      expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await other.stop();
      await own.drop();
    }
  });
});

describe('refresh and logout', () => {
  it('rotates the refresh token; re-using a rotated one revokes the whole chain', async () => {
    const u = await localUser(t, temp, 'readonly');
    const first = u.refresh;
    const second = await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: first } });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first);
    expect(second.body.user.id).toBe(u.id);
    expect((await t.call('GET', '/api/v1/auth/me', { token: second.body.access_token })).status).toBe(200);
    const third = await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: second.body.refresh_token } });
    expect(third.status).toBe(200);

    // The first token comes back: someone copied it. The chain ends, including the newest token.
    const reuse = await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: first } });
    expect(reuse.status).toBe(401);
    expect(
      (await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: third.body.refresh_token } })).status,
    ).toBe(401);
  });

  it('of two concurrent uses of one refresh token at most one succeeds', async () => {
    const u = await localUser(t, temp, 'readonly');
    const results = await Promise.all(
      [0, 1, 2].map(() => t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: u.refresh } })),
    );
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
  });

  it('logout ends the session', async () => {
    const u = await localUser(t, temp, 'readonly');
    expect((await t.call('POST', '/api/v1/auth/logout', { body: { refresh_token: u.refresh } })).status).toBe(204);
    expect((await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: u.refresh } })).status).toBe(401);
    expect((await t.call('POST', '/api/v1/auth/logout', { body: { refresh_token: 'unknown' } })).status).toBe(204);
  });

  it('refreshing a deleted user fails, and their access token stops working at once', async () => {
    const u = await localUser(t, temp, 'readonly');
    expect((await t.call('DELETE', `/api/v1/users/${u.id}`, { token: temp })).status).toBe(204);
    expect((await t.call('GET', '/api/v1/auth/me', { token: u.token })).status).toBe(401);
    expect((await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: u.refresh } })).status).toBe(401);
  });

  it("a new password ends the user's sessions", async () => {
    const u = await localUser(t, temp, 'readonly');
    expect(
      (await t.call('PUT', `/api/v1/users/${u.id}`, { token: temp, body: { password: 'a different password' } }))
        .status,
    ).toBe(200);
    expect((await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: u.refresh } })).status).toBe(401);
  });

  it('a demoted user is readonly on their next request', async () => {
    const a = await localUser(t, temp, 'admin');
    expect((await t.call('PUT', '/api/v1/secrets/demo', { token: a.token, body: { value: 'x' } })).status).toBe(200);
    expect((await t.call('PUT', `/api/v1/users/${a.id}`, { token: temp, body: { role: 'readonly' } })).status).toBe(
      200,
    );
    expect((await t.call('PUT', '/api/v1/secrets/demo', { token: a.token, body: { value: 'y' } })).status).toBe(403);
  });

  it('a tampered access token is refused', async () => {
    const u = await localUser(t, temp, 'readonly');
    const [h, p, s] = u.token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = [
      h,
      Buffer.from(JSON.stringify({ ...payload, kind: 'temporary_admin', sub: TEMP.username })).toString('base64url'),
      s,
    ].join('.');
    expect((await t.call('GET', '/api/v1/auth/me', { token: forged })).status).toBe(401);
  });
});
