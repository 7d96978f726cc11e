/** Machine tokens: created in the UI and shown once, used by automation, audited, re-issued and revoked. */
import { E2E } from './env';
import { expect, openPage, signInWithPassword, storedSession, test } from './helpers';

test('a token is shown once with a copy button, listed without its secret, audited per request, re-issued and revoked', async ({
  page,
  context,
  request,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Machine tokens');

  const form = page.getByRole('form', { name: 'Create a machine token' });
  await form.getByLabel('Token name').fill('deploy-bot');
  await form.getByLabel('Token role').selectOption('readonly');
  await form.getByLabel('Expires in days').fill('30');
  await form.getByRole('button', { name: 'Create token' }).click();

  const issued = page.getByRole('region', { name: /Token “deploy-bot”/ });
  await expect(issued).toContainText('shown only this once');
  const token = await issued.getByRole('textbox', { name: 'New machine token' }).inputValue();
  expect(token).toMatch(/^svm_[A-Za-z0-9]{30,}$/);
  await issued.getByRole('button', { name: 'Copy' }).click();
  await expect(issued.getByRole('status')).toHaveText('Copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  await issued.getByRole('button', { name: /^Done/ }).click();
  await expect(issued).toHaveCount(0);

  const row = page.getByRole('row', { name: /deploy-bot/ });
  await expect(row).toContainText('readonly');
  await expect(row).toContainText('active');
  const prefix = (await row.locator('code').innerText()).replace('…', '');
  expect(token.startsWith(prefix)).toBe(true);
  expect(prefix.length).toBeLessThan(token.length);
  expect(await page.content()).not.toContain(token);
  await page.reload();
  await expect(row).toBeVisible();
  expect(await page.content()).not.toContain(token);

  // Automation uses it: allowed reads, a refused secret value, a refused write.
  const auth = { authorization: `Bearer ${token}` };
  expect((await request.get('/api/v1/secrets', { headers: auth })).status()).toBe(200);
  expect((await request.get(`/api/v1/secrets/${E2E.secret.name}`, { headers: auth })).status()).toBe(403);
  expect((await request.put('/api/v1/secrets/from-bot', { headers: auth, data: { value: 'x' } })).status()).toBe(403);

  await row.getByRole('button', { name: 'Audit log of deploy-bot' }).click();
  const audit = page.getByRole('region', { name: /Audit log of “deploy-bot”/ });
  // Audit records may be written in batches: refresh until all three are there.
  await expect(async () => {
    await audit.getByRole('button', { name: 'Refresh' }).click();
    await expect(audit.getByRole('row')).toHaveCount(4, { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  const rows = audit.getByRole('row');
  // Newest first.
  await expect(rows.nth(1)).toContainText('PUT');
  await expect(rows.nth(1)).toContainText('/api/v1/secrets/from-bot');
  await expect(rows.nth(1)).toContainText('403');
  await expect(rows.nth(2)).toContainText(`/api/v1/secrets/${E2E.secret.name}`);
  await expect(rows.nth(2)).toContainText('403');
  await expect(rows.nth(3)).toContainText('GET');
  await expect(rows.nth(3)).toContainText('200');
  await audit.getByRole('button', { name: 'Close' }).click();

  // Re-issue: a new secret, same token; the old one stops working at once.
  await row.getByRole('button', { name: 'Re-issue deploy-bot' }).click();
  await row.getByRole('button', { name: 'Confirm re-issue deploy-bot' }).click();
  const reissued = await page.getByRole('textbox', { name: 'New machine token' }).inputValue();
  expect(reissued).toMatch(/^svm_/);
  expect(reissued).not.toBe(token);
  await page.getByRole('button', { name: /^Done/ }).click();
  expect((await request.get('/api/v1/secrets', { headers: auth })).status()).toBe(401);
  const newAuth = { authorization: `Bearer ${reissued}` };
  expect((await request.get('/api/v1/secrets', { headers: newAuth })).status()).toBe(200);

  // Revoke: final.
  await row.getByRole('button', { name: 'Revoke deploy-bot' }).click();
  await row.getByRole('button', { name: 'Confirm revoke deploy-bot' }).click();
  await expect(row).toContainText('revoked');
  await expect(row.getByRole('button', { name: /Revoke|Re-issue/ })).toHaveCount(0);
  expect((await request.get('/api/v1/secrets', { headers: newAuth })).status()).toBe(401);
});

test("a token's audit log pages through its requests, newest first", async ({ page, request }) => {
  await signInWithPassword(page, E2E.admin);
  const { access_token } = await storedSession(page);
  const created = await request.post('/api/v1/tokens', {
    headers: { authorization: `Bearer ${access_token}` },
    data: { name: 'busy-bot', role: 'readonly', expires_in_days: 1 },
  });
  expect(created.status()).toBe(201);
  const auth = { authorization: `Bearer ${(await created.json()).token}` };
  // 51 requests: one more than a page holds. The last one is refused.
  for (let i = 0; i < 50; i++) expect((await request.get('/api/v1/auth/me', { headers: auth })).status()).toBe(200);
  expect((await request.delete(`/api/v1/secrets/${E2E.secret.name}`, { headers: auth })).status()).toBe(403);

  await openPage(page, 'Machine tokens');
  await page.getByRole('button', { name: 'Audit log of busy-bot' }).click();
  const audit = page.getByRole('region', { name: /Audit log of “busy-bot”/ });
  const pager = audit.getByRole('navigation', { name: 'Audit log pages' });
  await expect(async () => {
    await audit.getByRole('button', { name: 'Refresh' }).click();
    await expect(pager).toContainText('Page 1 of 2 (51)', { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  const rows = audit.getByRole('row');
  await expect(rows).toHaveCount(51); // the header and 50 records
  await expect(rows.nth(1)).toContainText('DELETE');
  await expect(rows.nth(1)).toContainText('403');
  await pager.getByRole('button', { name: 'Next' }).click();
  await expect(pager).toContainText('Page 2 of 2');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText('/api/v1/auth/me');
  await expect(rows.nth(1)).toContainText('200');
});
