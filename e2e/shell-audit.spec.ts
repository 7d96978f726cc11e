/**
 * The dashboard shell (issue 15): the audit log reads as names with filters in the URL, sign-in returns
 * to the page it started from, "Not allowed" answers 403 and a missing page 404, dark mode follows the
 * system setting (and passes axe), and the Hub has a favicon. Runs alone or after the journeys (the same
 * admin address: the first person to sign in on a fresh Hub becomes superadmin).
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { checkPage, expectAccessible, signIn, uniqueSuffix } from './helpers';

test.describe.configure({ mode: 'serial' });

const run = process.env.E2E_RUN ?? uniqueSuffix();
const admin = { email: `admin-${run}@example.test`, name: 'Ada Admin' };
const writer = { email: `writer-${run}@example.test`, name: 'Wendy Writer' };
const category = { name: `Shell shelf ${run}`, slug: `shell-shelf-${run}` };
const origin = `http://localhost:${process.env.E2E_PORT ?? 3210}`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let adminContext: BrowserContext;
let writerContext: BrowserContext;
let adminPage: Page;
let writerPage: Page;

/** A dashboard mutation as the signed-in page makes it (tRPC over the session cookie, same origin). */
async function mutate(page: Page, procedure: string, input: unknown) {
  const res = await page.request.post(`/api/trpc/${procedure}`, {
    data: input,
    headers: { origin, 'content-type': 'application/json' },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).result.data;
}

async function newPage(browser: Browser) {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

test.beforeAll(async ({ browser }) => {
  ({ context: adminContext, page: adminPage } = await newPage(browser));
  ({ context: writerContext, page: writerPage } = await newPage(browser));
});

test.afterAll(async () => {
  await adminContext?.close();
  await writerContext?.close();
});

test('sign-in returns to the page it started from, or to the page that required it', async () => {
  // Clicked in the header on a filtered catalog page: back on that page, filters kept.
  await adminPage.goto('/?tags=gpu');
  await adminPage.getByRole('banner').getByRole('link', { name: 'Sign in' }).click();
  await expect(adminPage).toHaveURL(/\/signin\?callbackUrl=%2F%3Ftags%3Dgpu$/);
  await signIn(adminPage, admin.email, admin.name, { from: adminPage.url(), expectPath: /\/\?tags=gpu$/ });
  await expect(adminPage.getByRole('banner').getByRole('button', { name: 'Sign out' })).toBeVisible();

  // A page that needs a user, with its query: sign-in comes back to exactly it.
  await writerPage.goto('/account/tokens?from=shell');
  await expect(writerPage).toHaveURL(/\/signin\?callbackUrl=%2Faccount%2Ftokens%3Ffrom%3Dshell$/);
  await signIn(writerPage, writer.email, writer.name, {
    from: writerPage.url(),
    expectPath: /\/account\/tokens\?from=shell$/,
  });

  // Still same-origin only: another site as the return address is ignored.
  await writerPage.goto('/signin?callbackUrl=https%3A%2F%2Fevil.example%2Fsteal');
  await expect(writerPage).toHaveURL(`${origin}/account`);
});

test('"Not allowed" answers 403, a missing page 404, /support/tickets leads to the tickets', async () => {
  for (const path of ['/admin', '/admin/audit']) {
    const res = await writerPage.goto(path);
    expect(res?.status(), path).toBe(403);
    await expect(writerPage.getByRole('heading', { name: 'Not allowed' })).toBeVisible();
    await expect(writerPage.getByText(`You are signed in as ${writer.email}`)).toBeVisible();
  }
  for (const path of [`/no-such-page-${run}`, `/templates/no-such-template-${run}`]) {
    const missing = await writerPage.goto(path);
    expect(missing?.status(), path).toBe(404);
  }
  await writerPage.goto('/support/tickets');
  await expect(writerPage).toHaveURL(`${origin}/support`);
  await expect(writerPage.getByRole('heading', { name: 'Support tickets', level: 1 })).toBeVisible();
});

test('the audit log shows names, linked; filtering by actor narrows it and the URL keeps the filter', async () => {
  await mutate(writerPage, 'account.updateProfile', { name: 'Wendy W. Writer' });
  const created = await mutate(adminPage, 'admin.createCategory', { name: category.name, slug: category.slug });
  const categoryId: string = created.category.id;

  const page = adminPage;
  await page.goto('/admin/audit');
  const list = page.getByRole('list', { name: 'Audit records' });
  const categoryRow = list.getByRole('listitem').filter({ hasText: `created category ${category.name}` });
  await expect(categoryRow).toHaveCount(1);
  // Actor and target by name, linked to where they are managed; no raw ids anywhere in the text.
  await expect(categoryRow.getByRole('link', { name: admin.name, exact: true })).toHaveAttribute(
    'href',
    `/admin/users?search=${encodeURIComponent(admin.email)}`,
  );
  await expect(categoryRow.getByRole('link', { name: category.name, exact: true })).toHaveAttribute(
    'href',
    `/admin/categories/${categoryId}`,
  );
  await expect(list.getByRole('listitem').filter({ hasText: 'updated the profile of' }).first()).toContainText(
    'Name: Wendy Writer → Wendy W. Writer',
  );
  expect(await list.innerText()).not.toMatch(UUID);
  expect(await list.innerText()).not.toContain('{');
  // Relative time, exact time on hover, machine-readable.
  const time = categoryRow.locator('time');
  await expect(time).toHaveText(/just now|minute/);
  await expect(time).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
  await expect(time).toHaveAttribute('title', /\d{4}|\d{1,2}:\d{2}/);
  const allRows = await list.getByRole('listitem').count();

  await page.getByLabel('Actor').fill('Wendy');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/\/admin\/audit\?actor=Wendy$/);
  await expect(list.getByRole('listitem').first()).toContainText('Wendy W. Writer');
  const filtered = await list.getByRole('listitem').count();
  expect(filtered).toBeGreaterThan(0);
  expect(filtered).toBeLessThan(allRows);
  await expect(list.getByRole('link', { name: admin.name, exact: true })).toHaveCount(0);
  await expect(list.getByText(`created category ${category.name}`)).toHaveCount(0);

  // Reload and Back keep what the URL says.
  await page.reload();
  await expect(page.getByLabel('Actor')).toHaveValue('Wendy');
  await expect(list.getByRole('listitem')).toHaveCount(filtered);
  await page.getByLabel('Action').selectOption('category.create');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/actor=Wendy&action=category.create/);
  await expect(page.getByText('No audit records match')).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/\/admin\/audit\?actor=Wendy$/);
  await expect(page.getByLabel('Action')).toHaveValue('');
  await expect(list.getByRole('listitem')).toHaveCount(filtered);

  // Target filter by name, and the date range (today, UTC) keeps today's records.
  const today = new Date().toISOString().slice(0, 10);
  await page.goto(`/admin/audit?target=${encodeURIComponent(category.name)}&from=${today}&to=${today}`);
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await page.goto(`/admin/audit?target=${encodeURIComponent(category.name)}&to=2000-01-01`);
  await expect(page.getByText('No audit records match')).toBeVisible();

  await page.goto('/admin/audit');
  await checkPage(page, 'admin audit log');
  // At phone width the records are compact rows: a 25-row page is a few screens, not 7,000 px.
  await page.setViewportSize({ width: 390, height: 844 });
  const perRow = await page.evaluate(() => {
    const rows = [...document.querySelectorAll('ol[aria-label="Audit records"] > li')];
    return rows.reduce((sum, r) => sum + r.getBoundingClientRect().height, 0) / rows.length;
  });
  expect(perRow).toBeLessThan(160);
  await page.setViewportSize({ width: 1280, height: 800 });
});

async function luminance(page: Page, selector: string, property: 'backgroundColor' | 'color') {
  return page.evaluate(
    ([sel, prop]) => {
      const value = getComputedStyle(document.querySelector(sel)!)[prop as 'color'];
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = 1;
      const ctx = canvas.getContext('2d')!;
      ctx.fillStyle = value;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
      const lin = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
    },
    [selector, property] as const,
  );
}

test('dark mode follows the system setting, and passes axe', async () => {
  const page = adminPage;
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/');
  expect(await luminance(page, 'html', 'backgroundColor')).toBeGreaterThan(0.8);
  await page.emulateMedia({ colorScheme: 'dark' });
  for (const path of ['/', '/admin/audit', '/account', `/templates/postgresql`]) {
    await page.goto(path);
    await expect(page.locator('main h1').first()).toBeVisible();
    expect(await luminance(page, 'html', 'backgroundColor'), `${path} background`).toBeLessThan(0.05);
    expect(await luminance(page, 'header', 'backgroundColor'), `${path} header`).toBeLessThan(0.05);
    expect(await luminance(page, 'main h1', 'color'), `${path} heading text`).toBeGreaterThan(0.6);
    await expectAccessible(page, `${path} (dark)`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('the Hub has a favicon', async ({ request }) => {
  const ico = await request.get('/favicon.ico');
  expect(ico.status()).toBe(200);
  expect(ico.headers()['content-type']).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  expect((await ico.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
  await adminPage.goto('/');
  const href = await adminPage.locator('link[rel="icon"][type="image/svg+xml"]').getAttribute('href');
  const svg = await request.get(href!);
  expect(svg.status()).toBe(200);
  expect(await svg.text()).toContain('<svg');
});
