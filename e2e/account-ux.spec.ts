/**
 * Account and support pages without surprises (issue 15) and API tokens listed and revocable (issue 13):
 * actions that cannot succeed are not offered, a status change needs its confirmation and is safe from
 * arrow keys, every action stays within a 390 px screen with nothing scrolling sideways, and the account
 * page's first data is in the server's HTML.
 *
 * Only the journeys' platform admin signs in here (admin-E2E_RUN): this file sorts before journeys.spec.ts,
 * and whoever signs in first with the development provider becomes superadmin, which must be that person.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { signedIn, uniqueSuffix } from './helpers';

test.describe.configure({ mode: 'serial' });

const run = process.env.E2E_RUN ?? uniqueSuffix();
const admin = { email: `admin-${run}@example.test`, name: 'Ada Admin' };
const org = { name: `Desk ${run}`, slug: `desk-${run}` };
const API = `http://127.0.0.1:${process.env.E2E_PORT ?? 3210}/api/v1`;

async function api(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${API}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

async function toast(page: Page, text: string | RegExp) {
  await expect(page.locator('[data-sonner-toast]').filter({ hasText: text }).first()).toBeVisible();
}

let context: BrowserContext;
let page: Page;
let liveKey = '';
let ticket: { id: string; number: number };

async function createKey(name: string): Promise<string> {
  await page.getByLabel('New key name').fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Instance key created' });
  const secret = (await dialog.getByTestId('secret-value').textContent())!.trim();
  await dialog.getByRole('button', { name: 'I have saved it' }).click();
  await expect(dialog).toBeHidden();
  return secret;
}

async function issueApiToken(label: string): Promise<string> {
  await page.getByLabel('Name (optional)').fill(label);
  await page.getByRole('button', { name: 'Issue token' }).click();
  const panel = page.getByTestId('api-token');
  await expect(panel).toContainText(label);
  return (await panel.locator('code').first().textContent())!.trim();
}

test.beforeAll(async ({ browser }) => {
  context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
});

test('set-up: a platform admin with an organization, instance keys and a ticket', async () => {
  await signedIn(page, admin.email, admin.name);
  await page.getByLabel('Organization name').fill(org.name);
  await page.getByLabel('Slug').fill(org.slug);
  await page.getByRole('button', { name: 'Create organization' }).click();
  await expect(page.getByTestId('org-name')).toHaveText(org.name);
  liveKey = await createKey('ux-live');
  await createKey('ux-gone');
  await createKey('ux-race');
  const created = await api('/support/tickets', liveKey, {
    method: 'POST',
    body: { subject: `Disk full ${run}`, body: 'The volume is at 100%.' },
  });
  expect(created.status).toBe(200);
  ticket = created.body.ticket;
});

test('a revoked key offers no Re-issue or Revoke; a re-issue that fails closes its dialog', async () => {
  await page.goto('/account');
  await page.getByRole('button', { name: 'Revoke ux-gone' }).click();
  await page.getByRole('dialog', { name: 'Revoke ux-gone?' }).getByRole('button', { name: 'Revoke key' }).click();
  await toast(page, 'Key ux-gone revoked');
  const gone = page.getByTestId('key-row-ux-gone');
  await expect(gone).toContainText('revoked');
  await expect(gone.getByRole('button')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Re-issue ux-gone' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Re-issue ux-live' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Revoke ux-live' })).toBeVisible();
  // After a reload too (server-rendered rows).
  await page.reload();
  await expect(page.getByTestId('key-row-ux-gone')).toContainText('revoked');
  await expect(page.getByRole('button', { name: 'Re-issue ux-gone' })).toHaveCount(0);

  // The key is revoked elsewhere while this page still offers Re-issue: the attempt fails, and the dialog
  // does not stay open over the error; the row then offers nothing.
  const jwt = await issueApiToken('race script');
  const keys = await api('/account/api-keys', jwt);
  const race = keys.body.apiKeys.find((k: { name: string }) => k.name === 'ux-race');
  expect((await api('/account/api-keys', jwt, { method: 'DELETE', body: { id: race.id } })).status).toBe(200);
  await page.getByRole('button', { name: 'Re-issue ux-race' }).click();
  const dialog = page.getByRole('dialog', { name: 'Re-issue ux-race?' });
  await dialog.getByRole('button', { name: 'Re-issue key' }).click();
  await expect(dialog).toBeHidden();
  await toast(page, 'ux-race could not be re-issued');
  await expect(page.getByTestId('key-row-ux-race')).toContainText('revoked');
  await expect(page.getByRole('button', { name: 'Re-issue ux-race' })).toHaveCount(0);
});

test('script tokens are listed on the account page and revoking one refuses it at once', async () => {
  await page.goto('/account');
  const jwt = await issueApiToken('nightly export');
  expect((await api('/account/profile', jwt)).status).toBe(200);
  const listed = await api('/account/api-tokens', jwt);
  const row = listed.body.tokens.find((t: { label: string }) => t.label === 'nightly export');
  expect(row).toMatchObject({ source: 'dashboard', status: 'active' });
  const tableRow = page.getByTestId(`api-token-row-${row.id}`);
  await expect(tableRow).toContainText('nightly export');
  await expect(tableRow).toContainText('active');
  await tableRow.getByRole('button', { name: 'Revoke script token nightly export' }).click();
  await page
    .getByRole('dialog', { name: 'Revoke script token nightly export?' })
    .getByRole('button', { name: 'Revoke token' })
    .click();
  await toast(page, 'Script token nightly export revoked');
  await expect(tableRow).toContainText('revoked');
  await expect(tableRow.getByRole('button')).toHaveCount(0);
  expect((await api('/account/profile', jwt)).status).toBe(401);
});

test('a field error is shown beside its field once, not also in a toast', async () => {
  await page.goto('/account');
  // 101 characters: the browser's maxLength is bypassed on purpose to reach the server's validation.
  await page.getByLabel('New key name').evaluate((el: HTMLInputElement) => el.removeAttribute('maxlength'));
  await page.getByLabel('New key name').fill('k'.repeat(101));
  await page.getByRole('button', { name: 'Create key' }).click();
  const error = page.locator('#key-name-error');
  await expect(error).toBeVisible();
  await expect(error).not.toContainText('name:');
  await expect(page.getByLabel('New key name')).toHaveAttribute('aria-invalid', 'true');
  await page.waitForTimeout(500);
  await expect(page.locator('[data-sonner-toast]')).toHaveCount(0);
});

test('a ticket status change needs its confirmation, and ArrowDown on the focused select changes nothing', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/support/tickets/${ticket.id}`);
  const select = page.getByLabel('New status');
  await expect(select).toHaveValue('open');
  await select.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(1000);
  expect((await api(`/support/tickets/${ticket.id}`, liveKey)).body.ticket.status).toBe('open');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await select.selectOption('closed');
  await page.getByRole('button', { name: 'Change status' }).click();
  const dialog = page.getByRole('dialog', { name: `Close ticket #${ticket.number}?` });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect((await api(`/support/tickets/${ticket.id}`, liveKey)).body.ticket.status).toBe('open');

  await page.getByRole('button', { name: 'Change status' }).click();
  await dialog.getByRole('button', { name: 'Close ticket' }).click();
  await toast(page, `Ticket #${ticket.number} is now closed`);
  expect((await api(`/support/tickets/${ticket.id}`, liveKey)).body.ticket.status).toBe('closed');
  await expect(page.getByRole('button', { name: 'Change status' })).toBeDisabled();
});

test('at 390 px every action on the account and support pages is within the viewport and nothing scrolls sideways', async () => {
  const testInfo = test.info();
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of [
    '/account',
    '/account/tokens',
    '/support',
    '/support/instances',
    '/support/addon-events',
    `/support/tickets/${ticket.id}`,
  ]) {
    await page.goto(path);
    await page.waitForLoadState('networkidle');
    await expect(page.locator('main h1').first()).toBeVisible();
    if (path === '/account') await expect(page.getByRole('button', { name: 'Revoke ux-live' })).toBeVisible();
    if (path === '/support') await expect(page.getByRole('link', { name: `Disk full ${run}` })).toBeVisible();
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), {
        message: `${path} scrolls sideways at 390 px`,
      })
      .toBeLessThanOrEqual(0);
    const outside = await page.evaluate(() =>
      [...document.querySelectorAll('main button, main a[href], main select, main input, main textarea, main summary')]
        .map((el) => ({ el, box: el.getBoundingClientRect() }))
        .filter(
          ({ el, box }) =>
            box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden' && !el.closest('.sr-only'),
        )
        .filter(({ box }) => box.left < 0 || box.right > window.innerWidth + 0.5)
        .map(
          ({ el, box }) =>
            `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}" ` +
            `at ${Math.round(box.left)}–${Math.round(box.right)}`,
        ),
    );
    expect(outside, `actions outside the 390 px viewport on ${path}`).toEqual([]);
    await page.screenshot({
      path: testInfo.outputPath(`${path.split('/').filter(Boolean).slice(0, 2).join('-')}-390.png`),
      fullPage: true,
    });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("the account page's first key row and script tokens are in the server's HTML", async () => {
  const res = await page.request.get('/account');
  expect(res.status()).toBe(200);
  const html = await res.text();
  expect(html).toContain('data-testid="key-row-ux-live"');
  expect(html).toContain('data-testid="key-row-ux-gone"');
  expect(html).toContain('nightly export');
  expect(html).not.toContain('Loading your account');
  const tokens = await (await page.request.get('/account/tokens')).text();
  expect(tokens).toContain('Mint a token');
  expect(tokens).not.toContain('Loading your tokens');
});
