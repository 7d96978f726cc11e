/** People with a Core password: local users and the temporary admin. */
import { E2E } from './env';
import {
  expect,
  openPage,
  REFUSED_TOKEN,
  signInWithPassword,
  spoilAccessToken,
  storedSession,
  submitPassword,
  test,
} from './helpers';

test('a wrong password is refused with a message and no session', async ({ page }) => {
  await page.goto('/login');
  await submitPassword(page, { username: E2E.admin.username, password: 'not-the-password-at-all' });
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
  expect(await page.evaluate(() => sessionStorage.getItem('core.session'))).toBeNull();
});

test('repeated failures for one username are stopped, and the page says when to try again', async ({ page }) => {
  await page.goto('/login');
  const alert = page.getByRole('alert');
  for (let attempt = 1; attempt <= 5; attempt++) {
    await submitPassword(page, { username: 'mallory@example.test', password: `guess-number-${attempt}` });
    await expect(alert).toBeVisible();
    await expect(alert).not.toContainText('Try again in');
  }
  await submitPassword(page, { username: 'mallory@example.test', password: 'guess-number-6' });
  await expect(alert).toContainText(/Try again in (a minute|\d+ minutes)\./);
  await expect(page).toHaveURL(/\/login/);
});

test('a local admin signs in, the session survives a refused access token by refreshing, and signing out ends it', async ({
  page,
  request,
}) => {
  await signInWithPassword(page, E2E.admin);
  const header = page.getByRole('banner');
  await expect(header).toContainText(E2E.admin.name);
  await expect(header).toContainText('admin');
  await expect(page.getByText(/temporary admin from SVC_TEMP_ADMIN/)).toHaveCount(0);

  const first = await storedSession(page);
  expect(first.method).toBe('local');
  // An access token Core refuses (as an expired one would be): the app refreshes with Core and carries on.
  await spoilAccessToken(page);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  const second = await storedSession(page);
  expect(second.access_token).not.toBe(REFUSED_TOKEN);
  expect(second.refresh_token).not.toBe(first.refresh_token);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Core' })).toBeVisible();
  // Signing out revoked the refresh token with Core.
  await expect
    .poll(async () =>
      (await request.post('/api/v1/auth/refresh', { data: { refresh_token: second.refresh_token } })).status(),
    )
    .toBe(401);
});

test('the temporary admin sees the banner, adds a local user in the UI, and that user signs in', async ({ page }) => {
  await signInWithPassword(page, E2E.tempAdmin);
  const banner = page.getByRole('status').filter({ hasText: 'SVC_TEMP_ADMIN' });
  await expect(banner).toContainText('remove these variables');
  await openPage(page, 'Users');
  await expect(banner).toBeVisible();

  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill('uma@example.test');
  await form.getByLabel('Name').fill('Uma User');
  await form.getByLabel('Password').fill('uma-password-long-enough');
  await form.getByLabel('Role').selectOption('readonly');
  await form.getByRole('button', { name: 'Add user' }).click();
  const row = page.getByRole('row', { name: /uma@example\.test/ });
  await expect(row).toContainText('Uma User');
  // The temporary admin is not a user row.
  await expect(page.getByRole('row', { name: new RegExp(E2E.tempAdmin.username) })).toHaveCount(0);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await signInWithPassword(page, { username: 'uma@example.test', password: 'uma-password-long-enough' });
  await expect(page.getByRole('banner')).toContainText('Uma User');
  await expect(page.getByRole('banner')).toContainText('readonly');
  await expect(page.getByText(/SVC_TEMP_ADMIN/)).toHaveCount(0);
});

test('a session whose refresh Core refuses ends on the sign-in page with a notice, then returns to the page it was on', async ({
  page,
  request,
}) => {
  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Settings');
  await expect(page).toHaveTitle('Settings · Core');
  const { refresh_token } = await storedSession(page);
  // Ended elsewhere (as by a logout in another tab), and the access token is no longer accepted.
  expect((await request.post('/api/v1/auth/logout', { data: { refresh_token } })).status()).toBe(204);
  await spoilAccessToken(page);
  await page.reload();
  await expect(page.getByRole('status')).toHaveText('Your session has ended. Sign in again.');
  await expect(page).toHaveURL(/\/login\?next=%2Fsettings$/);
  await submitPassword(page, E2E.admin);
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await expect(page).toHaveURL(/\/settings$/);
});

test('after sign-in the app follows only a path on its own origin', async ({ page }) => {
  await page.goto('/login?next=' + encodeURIComponent('/\\evil.example/steal'));
  await submitPassword(page, E2E.admin);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  expect(page.url()).toBe(`${E2E.url}/`);
});

test('two tabs holding one session (a duplicated tab) refresh it together without Core taking it for a stolen token', async ({
  page,
  context,
  request,
}) => {
  await signInWithPassword(page, E2E.admin);
  const original = await storedSession(page);
  // "Duplicate tab" copies sessionStorage: the second tab starts with the same tokens.
  const copy = await context.newPage();
  await copy.goto('/login');
  const expired = JSON.stringify({ ...original, access_token: REFUSED_TOKEN });
  for (const tab of [page, copy]) await tab.evaluate((s) => sessionStorage.setItem('core.session', s), expired);

  // Both find their access token refused at the same moment and refresh.
  await Promise.all([page.reload(), copy.reload()]);
  for (const tab of [page, copy]) await expect(tab.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  const [a, b] = [await storedSession(page), await storedSession(copy)];
  expect(a.refresh_token).not.toBe(original.refresh_token);
  expect(b.refresh_token).toBe(a.refresh_token);
  // Core saw one rotation, not a re-use: the session is alive.
  expect((await request.post('/api/v1/auth/refresh', { data: { refresh_token: a.refresh_token } })).status()).toBe(200);
});
