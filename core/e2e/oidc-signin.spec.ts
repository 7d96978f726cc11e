/** Single sign-on: the browser runs the authorization-code flow with PKCE against a real OpenID provider. */
import { E2E } from './env';
import { expect, providerSignIn, REFUSED_TOKEN, spoilAccessToken, storedSession, test } from './helpers';

test('OIDC sign-in with PKCE (S256), state, nonce and resource; refresh with the provider', async ({ page }) => {
  const issuer = E2E.oidcIssuer;
  const authorize: URL[] = [];
  const tokenRequests: URLSearchParams[] = [];
  page.on('request', (req) => {
    if (!req.url().startsWith(issuer)) return;
    const url = new URL(req.url());
    if (url.searchParams.has('response_type')) authorize.push(url);
    if (req.method() === 'POST' && req.postData()?.includes('grant_type='))
      tokenRequests.push(new URLSearchParams(req.postData()!));
  });

  await page.goto('/secrets');
  await expect(page).toHaveURL(/\/login\?next=%2Fsecrets/);
  await page.getByRole('button', { name: /^Sign in with / }).click();
  await providerSignIn(page, 'olga@example.test');

  // Back on Core, on the page that asked for sign-in, as a new user with the default role.
  await expect(page.getByRole('heading', { level: 1, name: 'Secrets' })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`^${E2E.url}/secrets$`));
  await expect(page.getByRole('banner')).toContainText('readonly');

  const params = authorize[0]!.searchParams;
  expect(params.get('response_type')).toBe('code');
  expect(params.get('code_challenge_method')).toBe('S256');
  expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(params.get('state')).toBeTruthy();
  expect(params.get('nonce')).toBeTruthy();
  expect(params.get('resource')).toBeTruthy();
  expect(params.get('redirect_uri')).toBe(`${E2E.url}/auth/callback`);
  const exchange = tokenRequests.find((p) => p.get('grant_type') === 'authorization_code')!;
  expect(exchange.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
  expect(exchange.get('client_secret')).toBeNull();

  const session = await storedSession(page);
  expect(session.method).toBe('oidc');
  expect(session.refresh_token).toBeTruthy();

  // Core refuses the access token (as after expiry): the app refreshes with the provider and carries on.
  await spoilAccessToken(page);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Secrets' })).toBeVisible();
  expect(tokenRequests.some((p) => p.get('grant_type') === 'refresh_token')).toBe(true);
  const refreshed = await storedSession(page);
  expect(refreshed.access_token).not.toBe(REFUSED_TOKEN);
  expect(refreshed.method).toBe('oidc');
});

test('cancelling at the provider comes back with its reason and no session', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('button', { name: /^Sign in with / }).click();
  await page.waitForURL((url) => url.href.startsWith(E2E.oidcIssuer));
  await page.getByRole('link', { name: /cancel/i }).click();
  await expect(page).toHaveURL(/\/auth\/callback\?/);
  await expect(page.getByRole('alert')).toContainText('The provider refused the sign-in');
  expect(await page.evaluate(() => sessionStorage.getItem('core.session'))).toBeNull();
  await page.getByRole('link', { name: 'Back to sign-in' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Core' })).toBeVisible();
});

test('a callback this tab did not start (or with another state) signs nobody in', async ({ page }) => {
  await page.goto('/auth/callback?code=stolen-code&state=forged-state');
  await expect(page.getByRole('alert')).toContainText('was not started here');
  expect(await page.evaluate(() => sessionStorage.getItem('core.session'))).toBeNull();

  // Started here, but answered with another state: refused before any code exchange.
  await page.goto('/login');
  await page.getByRole('button', { name: /^Sign in with / }).click();
  await page.waitForURL((url) => url.href.startsWith(E2E.oidcIssuer));
  const tokenRequests: string[] = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && req.url().startsWith(E2E.oidcIssuer)) tokenRequests.push(req.url());
  });
  await page.goto('/auth/callback?code=stolen-code&state=forged-state');
  await expect(page.getByRole('alert')).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem('core.session'))).toBeNull();
  expect(tokenRequests).toEqual([]);
});
