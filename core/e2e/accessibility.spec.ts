/** axe (WCAG 2.1 A/AA) finds no serious or critical violation on the main pages, at 1280 px and at 390 px. */
import { E2E } from './env';
import { checkPage, expect, openPage, signInWithPassword, test } from './helpers';

test('the sign-in page', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Sign in to Core' })).toBeVisible();
  await checkPage(page, 'sign-in');
});

test("an admin's pages, with a new token and an audit log open", async ({ page }) => {
  await signInWithPassword(page, E2E.admin);
  await checkPage(page, 'overview');
  for (const link of ['Secrets', 'Users', 'Settings']) {
    await openPage(page, link);
    await checkPage(page, link);
  }
  await openPage(page, 'Machine tokens');
  const form = page.getByRole('form', { name: 'Create a machine token' });
  await form.getByLabel('Token name').fill('a11y-check');
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByRole('textbox', { name: 'New machine token' })).toBeVisible();
  await page
    .getByRole('row', { name: /a11y-check/ })
    .getByRole('button', { name: 'Audit log of a11y-check' })
    .click();
  await expect(page.getByRole('heading', { name: /Audit log of/ })).toBeVisible();
  await checkPage(page, 'machine tokens');
});

test("a readonly user's pages and the temporary admin's banner", async ({ page }) => {
  await signInWithPassword(page, E2E.readonly);
  for (const link of ['Secrets', 'Machine tokens', 'Settings']) {
    await openPage(page, link);
    await checkPage(page, `${link} (readonly)`);
  }
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signInWithPassword(page, E2E.tempAdmin);
  await expect(page.getByRole('status').filter({ hasText: 'SVC_TEMP_ADMIN' })).toBeVisible();
  await checkPage(page, 'overview (temporary admin)');
});
