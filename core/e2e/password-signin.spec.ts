/** People with a Core password: local users and the temporary admin. */
import { E2E } from './env';
import { expect, openPage, signInWithPassword, submitPassword, test } from './helpers';

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

test('a local admin signs in, a reload keeps the session with no token a script can read, and signing out ends it', async ({
  page,
}) => {
  await signInWithPassword(page, E2E.admin);
  const header = page.getByRole('banner');
  await expect(header).toContainText(E2E.admin.name);
  await expect(header).toContainText('admin');
  await expect(page.getByText(/temporary admin from SVC_TEMP_ADMIN/)).toHaveCount(0);

  // The refresh token is an HttpOnly cookie and the access token stays in memory: nothing for a script to read.
  const readable = () =>
    page.evaluate(() => ({
      cookie: document.cookie,
      storage: JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage, 'core.devices': '' }),
    }));
  expect(await readable()).toEqual({ cookie: '', storage: expect.not.stringMatching(/token|eyJ/) });
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === 'core_refresh')).toMatchObject({
    httpOnly: true,
    sameSite: 'Strict',
    path: '/api/v1/auth',
  });

  await page.reload();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(header).toContainText(E2E.admin.name);
  expect((await readable()).cookie).toBe('');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Core' })).toBeVisible();
  // Signing out revoked the session with Core and cleared the cookie.
  await expect.poll(async () => (await page.context().cookies()).some((c) => c.name === 'core_refresh')).toBe(false);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sign in to Core' })).toBeVisible();
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

test('a new tab of a signed-in browser is signed in; after signing out, a new tab asks to sign in', async ({
  page,
  context,
}) => {
  await signInWithPassword(page, E2E.admin);
  const tab = await context.newPage();
  await tab.goto('/deployments');
  await expect(tab.getByRole('heading', { level: 1, name: 'Deployments' })).toBeVisible();
  await expect(tab.getByRole('banner')).toContainText(E2E.admin.name);
  await tab.close();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Core' })).toBeVisible();
  const after = await context.newPage();
  await after.goto('/deployments');
  await expect(after.getByRole('heading', { name: 'Sign in to Core' })).toBeVisible();
  await expect(after).toHaveURL(/\/login\?next=%2Fdeployments$/);
});

test('a session ended elsewhere sends the next load to the sign-in page, then back to the page it was on', async ({
  page,
  context,
}) => {
  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Settings');
  await expect(page).toHaveTitle('Settings · Core');
  // Ended in another tab of this browser: the cookie is revoked and cleared for every tab.
  const other = await context.newPage();
  await other.goto('/');
  await other.getByRole('button', { name: 'Sign out' }).click();
  await expect(other.getByRole('heading', { name: 'Sign in to Core' })).toBeVisible();
  await other.close();
  await page.reload();
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

test('tabs opened at once share the one session cookie without Core taking it for a stolen token', async ({
  page,
  context,
}) => {
  await signInWithPassword(page, E2E.admin);
  // Each new tab refreshes with the cookie; Web Locks make them take turns, so each sends the rotated one.
  const tabs = await Promise.all([context.newPage(), context.newPage(), context.newPage()]);
  await Promise.all(tabs.map((tab) => tab.goto('/settings')));
  for (const tab of tabs) await expect(tab.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  // Core saw rotations, not a re-use: the session is alive for the next tab too.
  const last = await context.newPage();
  await last.goto('/');
  await expect(last.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
});
