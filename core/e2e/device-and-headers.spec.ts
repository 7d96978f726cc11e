/**
 * Issue 34 in a real browser: the built frontend runs under Core's Content-Security-Policy (only its own scripts:
 * no violation on any page it shows here), and it keeps the device token of a password sign-in, so that failures of
 * another client behind the same address for the same username do not lock this browser out.
 */
import { E2E } from './env';
import { expect, signInWithPassword, test } from './helpers';

test('the browser keeps its device token and signs in while another client is locked out; no CSP violation', async ({
  page,
  request,
}) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  page.on('pageerror', (e) => violations.push(e.message));

  const temp = await request.post('/api/v1/auth/login', { data: E2E.tempAdmin });
  expect(temp.status()).toBe(200);
  const user = { username: `device-${Date.now()}@example.test`, password: 'device-user-password-1' };
  const created = await request.post('/api/v1/users', {
    headers: { authorization: `Bearer ${(await temp.json()).access_token}` },
    data: { email: user.username, password: user.password, role: 'readonly' },
  });
  expect(created.status()).toBe(201);

  const home = await request.get('/');
  expect(home.headers()['content-security-policy']).toContain("script-src 'self';");
  expect(home.headers()['x-frame-options']).toBe('DENY');

  await signInWithPassword(page, user);
  const devices = JSON.parse((await page.evaluate(() => localStorage.getItem('core.devices'))) ?? '{}');
  expect(devices[user.username]).toEqual(expect.any(String));
  // Signed out without a word to Core: the session cookie gone, the device token kept.
  await page.context().clearCookies();

  // Another client on this machine (the same address) guesses five times: that client is refused from then on.
  for (let i = 0; i < 5; i++)
    expect((await request.post('/api/v1/auth/login', { data: { ...user, password: `guess-${i}` } })).status()).toBe(
      401,
    );
  expect((await request.post('/api/v1/auth/login', { data: user })).status()).toBe(429);

  // The browser, known by its device token, signs in all the same.
  await signInWithPassword(page, user);
  expect(violations).toEqual([]);
});
