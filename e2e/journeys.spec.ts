/**
 * The journeys of issue 4, in order, against the production build, a fresh PostgreSQL database and
 * the development OpenID provider (see global-setup.ts). Each step builds on the previous one.
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { checkPage, screenshot, signIn, uniqueSuffix } from './helpers';

test.describe.configure({ mode: 'serial' });

const run = uniqueSuffix();
const admin = { email: `admin-${run}@example.test`, name: 'Ada Admin' };
export const owner = { email: `owner-${run}@example.test`, name: 'Olga Owner' };

let adminContext: BrowserContext;
let ownerContext: BrowserContext;
let adminPage: Page;
export let ownerPage: Page;

async function newPage(browser: Browser) {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  return { context, page: await context.newPage() };
}

test.beforeAll(async ({ browser }) => {
  ({ context: adminContext, page: adminPage } = await newPage(browser));
  ({ context: ownerContext, page: ownerPage } = await newPage(browser));
});

test.afterAll(async () => {
  await adminContext?.close();
  await ownerContext?.close();
});

test('signed-out visitors see the public catalog and the sign-in page explains the development provider', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Catalog' })).toBeVisible();
  await checkPage(page, 'catalog (signed out)');
  await page.goto('/account');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Faccount/);
  await expect(page.getByText('Development identity provider')).toBeVisible();
  await expect(page.getByText(/first person to sign in becomes superadmin/)).toBeVisible();
  await checkPage(page, 'sign-in');
  await screenshot(page, 'signin');
});

test('the first person to sign in becomes superadmin', async () => {
  await signIn(adminPage, admin.email, admin.name, { expectPath: /\/account$/ });
  await expect(adminPage.getByText(`Signed in as ${admin.email}`)).toBeVisible();
  await expect(adminPage.getByText('superadmin')).toBeVisible();
  await expect(adminPage.getByRole('link', { name: 'Admin' })).toBeVisible();
  await checkPage(adminPage, 'account (no organization)');
});
