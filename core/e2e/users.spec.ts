/** User management by an admin: add, change the role, delete; the last admin cannot demote themself. */
import { E2E } from './env';
import { expect, openPage, signInWithPassword, test } from './helpers';

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
