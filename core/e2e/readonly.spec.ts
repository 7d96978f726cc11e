/** A readonly user reads everything but secret values and sees no control that would change anything. */
import { E2E } from './env';
import { expect, openPage, signInWithPassword, storedSession, test } from './helpers';

const WRITE_BUTTONS = /^(Reveal|Delete|Revoke|Re-issue|Create token|Add user|Save secret|Save single sign-on|Remove)\b/;

test('a readonly user lists secrets but cannot read one, and sees no write controls anywhere', async ({
  page,
  request,
}) => {
  await signInWithPassword(page, E2E.readonly);
  await expect(page.getByRole('banner')).toContainText('readonly');
  const main = page.getByRole('main');

  await openPage(page, 'Secrets');
  await expect(main.getByRole('row', { name: new RegExp(E2E.secret.name) })).toBeVisible();
  await expect(main).toContainText('Secret values are shown to admins only.');

  for (const [link, heading] of [
    ['Secrets', 'Secrets'],
    ['Users', 'Users'],
    ['Machine tokens', 'Machine tokens'],
    ['Settings', 'Settings'],
    ['Overview', 'Overview'],
  ] as const) {
    await openPage(page, link, heading);
    await expect(main.locator('input, select, textarea, form'), `form controls on ${heading}`).toHaveCount(0);
    await expect(main.getByRole('button', { name: WRITE_BUTTONS }), `write buttons on ${heading}`).toHaveCount(0);
  }
  await openPage(page, 'Users');
  await expect(main.getByRole('row', { name: new RegExp(E2E.admin.username) })).toContainText('admin');
  expect(await page.content()).not.toContain(E2E.secret.value);

  // The server refuses too: the readonly user's own access token cannot read the value.
  const { access_token } = await storedSession(page);
  const res = await request.get(`/api/v1/secrets/${E2E.secret.name}`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  expect(res.status()).toBe(403);
  const body = await res.json();
  expect(body.message).toMatch(/requires admin/);
  expect(JSON.stringify(body)).not.toContain(E2E.secret.value);
});

test('an admin sets, reveals and deletes a secret', async ({ page }) => {
  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Secrets');
  const form = page.getByRole('form', { name: 'Set a secret' });
  await form.getByLabel('Secret name').fill('smtp.password');
  await form.getByLabel('Value').fill('mail-secret-e2e');
  await form.getByLabel('Description').fill('Outgoing mail');
  await form.getByRole('button', { name: 'Save secret' }).click();

  const row = page.getByRole('row', { name: /smtp\.password/ });
  await expect(row).toContainText('Outgoing mail');
  await expect(row).not.toContainText('mail-secret-e2e');
  await row.getByRole('button', { name: 'Reveal smtp.password' }).click();
  await expect(row).toContainText('mail-secret-e2e');
  await row.getByRole('button', { name: 'Hide smtp.password' }).click();
  await expect(row).not.toContainText('mail-secret-e2e');

  await row.getByRole('button', { name: 'Delete smtp.password' }).click();
  await row.getByRole('button', { name: 'Confirm delete smtp.password' }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByRole('row', { name: new RegExp(E2E.secret.name) })).toBeVisible();
});
