/**
 * User management by an admin: add, change the role, delete; the last admin cannot demote themself; a deleted
 * single sign-on person is refused until an admin re-admits them.
 */
import { E2E } from './env';
import { expect, openPage, providerSignIn, signInWithPassword, test } from './helpers';

test('an admin adds a user, makes them admin, deletes them, and cannot demote the last admin', async ({ page }) => {
  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Users');

  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill('vic@example.test');
  await form.getByLabel('Password').fill('short');
  await form.getByRole('button', { name: 'Add user' }).click();
  // The browser's own check (12 characters at least) keeps the form from being sent.
  await expect(page.getByRole('row', { name: /vic@example\.test/ })).toHaveCount(0);
  await form.getByLabel('Password').fill('vic-password-long-enough');
  await form.getByRole('button', { name: 'Add user' }).click();

  const vic = page.getByRole('row', { name: /vic@example\.test/ });
  await expect(vic.getByRole('combobox', { name: 'Role of vic@example.test' })).toHaveValue('readonly');
  const saved = page.waitForResponse((res) => res.request().method() === 'PUT' && res.url().includes('/api/v1/users/'));
  await vic.getByRole('combobox', { name: 'Role of vic@example.test' }).selectOption('admin');
  expect((await saved).status()).toBe(200);
  await page.reload();
  await expect(vic.getByRole('combobox', { name: 'Role of vic@example.test' })).toHaveValue('admin');

  await vic.getByRole('button', { name: 'Delete vic@example.test' }).click();
  await vic.getByRole('button', { name: 'Confirm delete vic@example.test' }).click();
  await expect(vic).toHaveCount(0);

  // Ada is now the only admin user (the temporary admin does not count): Core refuses, the page says why.
  const ada = page.getByRole('row', { name: new RegExp(E2E.admin.username) });
  await ada.getByRole('combobox').selectOption('readonly');
  await expect(ada.getByRole('alert')).toContainText(/admin/i);
  await expect(ada.getByRole('combobox')).toHaveValue('admin');
  await expect(page.getByRole('banner')).toContainText('admin');
});

test('a removed single sign-on person is refused at sign-in until an admin re-admits them', async ({
  page,
  browser,
}) => {
  const person = 'bruno@example.test';
  /** Bruno signs in through the provider in a browser of his own. */
  const brunoSignsIn = async () => {
    const context = await browser.newContext({ baseURL: E2E.url });
    const tab = await context.newPage();
    await tab.goto('/login');
    await tab.getByRole('button', { name: /^Sign in with / }).click();
    await providerSignIn(tab, person);
    return { tab, done: () => context.close() };
  };

  let bruno = await brunoSignsIn();
  await expect(bruno.tab.getByRole('banner')).toContainText('readonly');
  await bruno.done();

  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Users');
  const row = page.getByRole('row', { name: /bruno@example\.test/ });
  await row.getByRole('button', { name: `Delete ${person}` }).click();
  await row.getByRole('button', { name: `Confirm delete ${person}` }).click();
  const removed = page.getByRole('table', { name: 'Removed people' });
  await expect(removed.getByRole('row', { name: /bruno@example\.test/ })).toBeVisible();

  // The provider still knows him; Core does not let him back in, and says why.
  bruno = await brunoSignsIn();
  await expect(bruno.tab.getByRole('alert')).toContainText('was removed from this Core instance');
  await expect(bruno.tab.getByRole('banner')).toHaveCount(0);
  await bruno.done();

  await removed.getByRole('button', { name: `Re-admit ${person}` }).click();
  await expect(page.getByRole('heading', { name: 'Removed people' })).toHaveCount(0);
  bruno = await brunoSignsIn();
  await expect(bruno.tab.getByRole('banner')).toContainText('readonly');
  await bruno.done();
});
