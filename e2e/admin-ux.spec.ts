/**
 * The admin area as people use it (issue 15): permission changes only through an explicit, confirmed action
 * (arrow keys on a focused select change nothing), list searches in the URL (reload, Back, Edit → Save keep
 * them), phone width without sideways scrolling and with every table action on screen, and first rows in the
 * server HTML (no client fetch for them).
 *
 * The admin is the journeys' admin (same E2E_RUN identity), so whichever file runs first, the same person is the
 * first to sign in and becomes superadmin.
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expectAccessible, gotoBeforeHydration, signedIn, signIn, uniqueSuffix, waitForHydration } from './helpers';

test.describe.configure({ mode: 'serial' });

const run = process.env.E2E_RUN ?? uniqueSuffix();
const admin = { email: `admin-${run}@example.test`, name: 'Ada Admin' };
const bob = { email: `bob-${run}@example.test`, name: 'Bob Builder' };
const bobOrg = `Bobco ${run}`;
const PHONE = { width: 390, height: 844 };
const SEARCH_FORM = 'form[role="search"]';

let adminContext: BrowserContext;
let page: Page;

async function newPage(browser: Browser) {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

/** Bob's platform role as the server has it (the tRPC query of the dashboard, with the admin's session). */
async function roleOf(email: string) {
  const input = encodeURIComponent(JSON.stringify({ search: email }));
  const res = await page.request.get(`/api/trpc/admin.listUsers?input=${input}`);
  expect(res.status()).toBe(200);
  const users = (await res.json()).result.data.users as { email: string; role: string }[];
  return users.find((u) => u.email === email)?.role;
}

test.beforeAll(async ({ browser }) => {
  ({ context: adminContext, page } = await newPage(browser));
  await signedIn(page, admin.email, admin.name);
  // Bob: a second user with an organization and an instance key (rows for the users, organizations and keys tables).
  const { context, page: bobPage } = await newPage(browser);
  await signIn(bobPage, bob.email, bob.name, { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  await bobPage.getByLabel('Organization name').fill(bobOrg);
  await bobPage.getByRole('button', { name: 'Create organization' }).click();
  await expect(bobPage.getByTestId('org-name')).toHaveText(bobOrg);
  await bobPage.getByLabel('New key name').fill('bob-core');
  await bobPage.getByRole('button', { name: 'Create key' }).click();
  await bobPage
    .getByRole('dialog', { name: 'Instance key created' })
    .getByRole('button', { name: 'I have saved it' })
    .click();
  await context.close();
});

test.afterAll(async () => {
  await adminContext?.close();
});

test('a role change needs its confirmation; ArrowDown on the focused select changes nothing', async () => {
  await page.goto(`/admin/users?search=${encodeURIComponent(bob.email)}`);
  const select = page.getByLabel(`Platform role of ${bob.email}`);
  await expect(select).toHaveValue('user');

  // The keystroke of the issue: it only stages a value.
  await select.focus();
  await page.keyboard.press('ArrowDown');
  await expect(select).toHaveValue('admin');
  await page.waitForLoadState('networkidle');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(await roleOf(bob.email)).toBe('user');

  // Apply states the change; Cancel applies nothing and shows the applied role again.
  await page.getByRole('button', { name: `Apply the role of ${bob.email}` }).click();
  let dialog = page.getByRole('dialog', { name: `Make ${bob.name} a platform admin?` });
  await expect(dialog).toBeVisible();
  await expectAccessible(page, 'role change confirmation');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(select).toHaveValue('user');
  expect(await roleOf(bob.email)).toBe('user');

  // Only the confirmation's button applies it.
  await select.selectOption('admin');
  await page.getByRole('button', { name: `Apply the role of ${bob.email}` }).click();
  dialog = page.getByRole('dialog', { name: `Make ${bob.name} a platform admin?` });
  await dialog.getByRole('button', { name: 'Make admin' }).click();
  await expect(
    page
      .locator('[data-sonner-toast]')
      .filter({ hasText: `${bob.email} is now admin` })
      .first(),
  ).toBeVisible();
  await expect(dialog).toBeHidden();
  expect(await roleOf(bob.email)).toBe('admin');

  await select.selectOption('user');
  await page.getByRole('button', { name: `Apply the role of ${bob.email}` }).click();
  await page
    .getByRole('dialog', { name: `Make ${bob.name} a regular user?` })
    .getByRole('button', { name: 'Make user' })
    .click();
  await expect.poll(() => roleOf(bob.email)).toBe('user');
});

test('changes the server would refuse are not offered: the only superadmin cannot be demoted or deleted', async () => {
  await page.goto(`/admin/users?search=${encodeURIComponent(admin.email)}`);
  await expect(page.getByLabel(`Platform role of ${admin.email}`)).toBeDisabled();
  await expect(page.getByText('The only superadmin: make someone else superadmin first.')).toBeVisible();
  await expect(page.getByRole('button', { name: `Apply the role of ${admin.email}` })).toHaveCount(0);
  await expect(page.getByRole('button', { name: `Delete ${admin.email}` })).toHaveCount(0);
  // A revoked key offers no Revoke.
  await page.goto('/admin/api-keys?status=revoked');
  await expect(page.getByRole('button', { name: /^Revoke / })).toHaveCount(0);
});

test('suspending an organization is stated and confirmed; Cancel changes nothing', async () => {
  await page.goto(`/admin/organizations?search=${encodeURIComponent(bobOrg)}`);
  await page.getByRole('link', { name: bobOrg, exact: true }).click();
  // The list has a Status filter too: wait for the organization's page.
  await expect(page.getByRole('heading', { name: 'Status and tier' })).toBeVisible();
  await page.getByLabel('Status').selectOption('suspended');
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Suspend ${bobOrg}?` });
  await expect(dialog).toContainText('stop working');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.reload();
  await expect(page.getByLabel('Status')).toHaveValue('active');
});

test('the admin templates search and page are in the URL: reload, Back and Edit → Save keep them', async () => {
  // Typed before the page is interactive (scripts held back): kept, and Enter after hydration sends it.
  const loading = await gotoBeforeHydration(page, '/admin/templates');
  await page.getByLabel('Search templates').fill('postgres');
  await loading.release(SEARCH_FORM);
  await page.getByLabel('Search templates').press('Enter');
  await expect(page).toHaveURL(/\/admin\/templates\?search=postgres$/);
  await expect(page.getByRole('link', { name: 'PostgreSQL', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Redis', exact: true })).toHaveCount(0);

  await page.reload();
  await expect(page.getByLabel('Search templates')).toHaveValue('postgres');
  await expect(page.getByRole('link', { name: 'PostgreSQL', exact: true })).toBeVisible();

  // Enter before hydration would be the browser's own submit; wait for the handlers.
  await waitForHydration(page, SEARCH_FORM);
  await page.getByLabel('Search templates').fill('redis');
  await page.getByLabel('Search templates').press('Enter');
  await expect(page).toHaveURL(/search=redis$/);
  await expect(page.getByRole('link', { name: 'PostgreSQL', exact: true })).toHaveCount(0);
  await page.goBack();
  await expect(page).toHaveURL(/search=postgres$/);
  await expect(page.getByLabel('Search templates')).toHaveValue('postgres');
  await expect(page.getByRole('link', { name: 'PostgreSQL', exact: true })).toBeVisible();

  // Edit → Save comes back to the same list.
  await page.getByRole('link', { name: 'Edit PostgreSQL' }).click();
  await page.getByRole('button', { name: 'Save template' }).click();
  await expect(page).toHaveURL(/\/admin\/templates\?search=postgres$/);
  await expect(page.getByLabel('Search templates')).toHaveValue('postgres');

  // The page number too (the demo catalog has more than one page of 20).
  await page.goto('/admin/templates?page=2');
  await expect(page.getByText(/^Page 2 of \d+/)).toBeVisible();
  await page.reload();
  await expect(page.getByText(/^Page 2 of \d+/)).toBeVisible();
});

test('a form filled in before the page is interactive keeps every field (the new-category form)', async () => {
  // Two fields whose handlers each copy the whole form state: both must arrive, not only the last one.
  const name = `Early ${uniqueSuffix()}`;
  const loading = await gotoBeforeHydration(page, '/admin/categories');
  await page.locator('#cat-new-name').fill(name);
  await page.locator('#cat-new-description').fill('Typed before hydration');
  await loading.release('#cat-new-name');
  await expect(page.locator('#cat-new-slug')).toHaveValue(/^early-/); // derived from the name by its handler
  await page.getByRole('button', { name: 'Create category' }).click();
  await page.getByRole('link', { name: `Edit ${name}` }).click();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue(name);
  await expect(page.getByLabel('Description', { exact: true })).toHaveValue('Typed before hydration');
});

test('at 390 px every admin table action is within the viewport and nothing scrolls sideways; the tab bar scrolls', async () => {
  await page.setViewportSize(PHONE);
  for (const path of [
    '/admin/templates',
    '/admin/categories',
    '/admin/organizations',
    '/admin/users',
    '/admin/api-keys',
  ]) {
    await page.goto(path);
    await expect(page.locator('main table').first()).toBeVisible();
    const actions = page.locator('main table').locator('button, a, select');
    const n = await actions.count();
    expect(n, `${path} has table actions`).toBeGreaterThan(0);
    for (let i = 0; i < n; i++) {
      const box = await actions.nth(i).boundingBox();
      expect(box, `${path}: action ${i} is rendered`).not.toBeNull();
      expect(box!.x, `${path}: action ${i} starts on screen`).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, `${path}: action ${i} ends on screen`).toBeLessThanOrEqual(PHONE.width);
    }
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      `${path} scrolls sideways`,
    ).toBe(true);
    await expectAccessible(page, `${path} (phone width)`);
  }
  // The tab bar scrolls inside itself; every tab is whole (no "Organizat").
  const nav = page.getByRole('navigation', { name: 'Admin' });
  expect(await nav.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  for (const name of ['Organizations', 'Instance keys', 'Audit log']) {
    const tab = nav.getByRole('link', { name });
    await tab.scrollIntoViewIfNeeded();
    const box = (await tab.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    // Text widths are fractional: a tab scrolled to the bar's end may overhang by a fraction of a pixel (390.4 seen).
    expect(box.x + box.width).toBeLessThan(PHONE.width + 1);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('the first rows of Admin → Users and Templates are in the server HTML; the browser does not fetch them again', async () => {
  const res = await page.request.get('/admin/users');
  expect(res.status()).toBe(200);
  const html = await res.text();
  expect(html).toContain(`data-testid="user-row-${bob.email}"`);
  expect(html).toContain(bob.email);
  const templates = await (await page.request.get('/admin/templates?search=postgres')).text();
  expect(templates).toContain('Edit PostgreSQL');

  // Hydration hits: the prefetched list queries are not asked for again by the browser.
  const listFetches: string[] = [];
  page.on('request', (r) => {
    if (/\/api\/trpc\/[^?]*admin\.list/.test(r.url())) listFetches.push(r.url());
  });
  for (const path of [
    '/admin/users',
    `/admin/users?search=${encodeURIComponent(bob.email)}`,
    '/admin/templates?search=postgres&page=1',
    '/admin/organizations',
    '/admin/api-keys',
    '/admin/categories',
  ]) {
    await page.goto(path);
    await expect(page.locator('main table').first()).toBeVisible();
    await page.waitForLoadState('networkidle');
  }
  expect(listFetches).toEqual([]);
});
