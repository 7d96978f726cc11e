/**
 * The journeys of issue 4, in order, against the production build, a fresh PostgreSQL database and
 * the development OpenID provider (see global-setup.ts). Each step builds on the previous one; every
 * page visited is checked with axe-core (no serious or critical violations) at desktop and phone width.
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { checkPage, screenshot, signIn, uniqueSuffix } from './helpers';

test.describe.configure({ mode: 'serial' });

/** Shared with the other spec files of the run (set by global-setup). */
const run = process.env.E2E_RUN ?? uniqueSuffix();
const admin = { email: `admin-${run}@example.test`, name: 'Ada Admin' };
const owner = { email: `owner-${run}@example.test`, name: 'Olga Owner' };
const member = { email: `member-${run}@example.test`, name: 'Mia Member' };
const category = { name: `Licensed models ${run}`, slug: `licensed-${run}` };
const template = { name: `Private LLM ${run}`, slug: `private-llm-${run}` };
const org = { name: `Acme ${run}`, slug: `acme-${run}` };

/** REST calls as a Core instance would make them (curl-equivalent). */
const API = `http://127.0.0.1:${process.env.E2E_PORT ?? 3210}/api/v1`;
async function api(path: string, token?: string) {
  const res = await fetch(`${API}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

let adminContext: BrowserContext;
let ownerContext: BrowserContext;
let adminPage: Page;
let ownerPage: Page;
let instanceKey = '';

async function newPage(browser: Browser) {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  return { context, page: await context.newPage() };
}

async function toast(page: Page, text: string | RegExp) {
  await expect(page.locator('[data-sonner-toast]').filter({ hasText: text }).first()).toBeVisible();
}

test.beforeAll(async ({ browser }) => {
  ({ context: adminContext, page: adminPage } = await newPage(browser));
  ({ context: ownerContext, page: ownerPage } = await newPage(browser));
});

test.afterAll(async () => {
  await adminContext?.close();
  await ownerContext?.close();
});

test('signed-out visitors see the public catalog; pages that need a user send them to sign in', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Catalog' })).toBeVisible();
  await checkPage(page, 'catalog (signed out)');
  // Pagination, search, tag, category and featured filters of the public catalog (the demo seed).
  await expect(page.getByText('Page 1 of 2')).toBeVisible();
  await page.getByRole('navigation', { name: 'Pagination' }).getByRole('link', { name: 'Next →' }).click();
  await expect(page.getByText('Page 2 of 2')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Categories' }).getByText('Enterprise AI')).toHaveCount(0);
  await page.getByLabel('Search').fill('postgres');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/search=postgres/);
  await expect(page.getByRole('link', { name: /PostgreSQL/ })).toBeVisible();
  await expect(page.getByText(/^\d+ templates?$/)).toHaveText('1 template');
  await page.goto('/?tags=gpu');
  await expect(page.getByRole('link', { name: /Ollama/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /Redis/ })).toHaveCount(0);
  await page.goto('/');
  await page
    .getByRole('navigation', { name: 'Categories' })
    .getByRole('link', { name: /Databases/ })
    .click();
  await expect(page).toHaveURL(/category=databases/);
  await expect(page.getByRole('link', { name: /MariaDB/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /Grafana/ })).toHaveCount(0);
  await page.goto('/?featured=true');
  await expect(page.getByRole('link', { name: /Grafana/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /Redis/ })).toHaveCount(0);
  await page.getByRole('link', { name: /Grafana/ }).click();
  await expect(page.getByRole('heading', { name: 'Grafana', level: 1 }).first()).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Configuration' })).toBeVisible();
  await checkPage(page, 'template detail (public)');
  await page.goto('/account');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Faccount/);
  await expect(page.getByText('Development identity provider')).toBeVisible();
  // Which rule applies depends on whether an earlier file of the run has signed its admin in already.
  await expect(page.getByText(/first person to sign in becomes superadmin|superadmin exists already/)).toBeVisible();
  await checkPage(page, 'sign-in');
  await screenshot(page, 'signin');
  await page.goto('/admin');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fadmin/);
});

test('the first person to sign in becomes superadmin', async () => {
  await signIn(adminPage, admin.email, admin.name, { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  await expect(adminPage.getByText(`Signed in as ${admin.email}`)).toBeVisible();
  await expect(adminPage.getByText('superadmin', { exact: true })).toBeVisible();
  await expect(adminPage.getByRole('link', { name: 'Admin', exact: true })).toBeVisible();
  await checkPage(adminPage, 'account (no organization)');
});

test('admin creates a private category and a template in it (server validation shown inline)', async () => {
  const page = adminPage;
  await page.goto('/admin');
  // admin-ux.spec.ts (same run) may have signed people in before.
  await expect(page.getByTestId('stat-users')).toHaveText(/^[1-9]\d*$/);
  await checkPage(page, 'admin overview');
  await screenshot(page, 'admin-overview');

  await page.goto('/admin/categories');
  await page.getByLabel('Name', { exact: true }).fill(category.name);
  await page.getByLabel('Slug', { exact: true }).fill(category.slug);
  await page.getByLabel('Description').fill('Licensed models for organizations with access');
  await page.getByLabel('Private').check();
  await page.getByRole('button', { name: 'Create category' }).click();
  await toast(page, `Category ${category.name} created`);
  const row = page.getByRole('row').filter({ hasText: category.slug });
  await expect(row.getByText('private')).toBeVisible();
  await checkPage(page, 'admin categories');

  await page.goto('/admin/templates/new');
  await page.getByLabel('Name', { exact: true }).fill(template.name);
  await page.getByLabel('Slug', { exact: true }).fill(template.slug);
  await page.getByLabel('Description', { exact: true }).fill('A licensed large language model server');
  await page.getByLabel('Category').selectOption({ label: `${category.name} (private)` });
  await page.getByLabel('Version').fill('2.1.0');
  await page.getByLabel('Tags').fill('llm, gpu');
  await page.getByLabel('Image name').fill('registry.example.com/models/private-llm');
  await page.getByLabel('Image tag').fill('2.1.0');
  await page.getByLabel('Memory request').fill('lots');
  await page.getByLabel('GPUs').fill('1');
  await page.getByRole('button', { name: 'Add port' }).click();
  await page.getByLabel('Ports 1 Container port').fill('8080');
  await page.getByRole('button', { name: 'Add variable to the schema' }).click();
  await page.getByLabel('Environment schema 1 Variable').fill('MODEL_NAME');
  await page.getByLabel('Environment schema 1 Description').fill('Which model to load');
  await page
    .getByLabel('Documentation (Markdown)')
    .fill(
      '# Private LLM\n\nServes **licensed** models.\n\n<script>window.__pwned = 1</script>\n\n' +
        '[click me](javascript:window.__pwned=2)\n\n<img src="x" onerror="window.__pwned=3">\n\n' +
        '| Port | Use |\n|---|---|\n| 8080 | API |\n',
    );
  await page.getByRole('button', { name: 'Create template' }).click();
  // The server refuses the memory quantity and the form shows why, next to the field.
  await expect(page.locator('#t-memory_request-error')).toContainText('must be a quantity with a unit suffix');
  await expect(page.getByLabel('Memory request')).toHaveAttribute('aria-invalid', 'true');
  await checkPage(page, 'admin template form with errors');
  await screenshot(page, 'admin-template-form');
  await page.getByLabel('Memory request').fill('16Gi');
  await page.getByRole('button', { name: 'Create template' }).click();
  await toast(page, `Template ${template.name} created`);
  await expect(page).toHaveURL(/\/admin\/templates$/);
  await expect(page.getByRole('link', { name: template.name, exact: true })).toBeVisible();
  await checkPage(page, 'admin templates');

  // The admin sees the private template in the catalog; its documentation is rendered and sanitized.
  await page.goto(`/templates/${template.slug}`);
  await expect(page.getByRole('heading', { name: 'Private LLM', level: 1 }).last()).toBeVisible();
  await expect(page.locator('.markdown strong')).toHaveText('licensed');
  await expect(page.locator('.markdown table')).toBeVisible();
  expect(await page.locator('.markdown script, .markdown img[onerror]').count()).toBe(0);
  expect(await page.locator('.markdown a[href^="javascript:"]').count()).toBe(0);
  expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
  await expect(page.getByText('MODEL_NAME')).toBeVisible();
  await expect(page.getByText('8080/TCP')).toBeVisible();
  await checkPage(page, 'template detail');
  await screenshot(page, 'template-detail');
});

test('a second person signs in, creates an organization and an instance key, and copies it', async () => {
  const page = ownerPage;
  await signIn(page, owner.email, owner.name, { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  await expect(page.getByText('user', { exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Admin', exact: true })).toHaveCount(0);
  await page.getByLabel('Organization name').fill(org.name);
  await expect(page.getByLabel('Slug')).toHaveValue(org.slug);
  await page.getByRole('button', { name: 'Create organization' }).click();
  await toast(page, `Organization ${org.name} created`);
  await expect(page.getByTestId('org-name')).toHaveText(org.name);

  await page.getByLabel('New key name').fill('core-prod');
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Instance key created' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText('you will not see it again')).toBeVisible();
  const shown = (await dialog.getByTestId('secret-value').textContent())!.trim();
  expect(shown).toMatch(/^svh_/);
  await dialog.getByRole('button', { name: 'Copy' }).click();
  await toast(page, 'Instance key copied');
  instanceKey = await page.evaluate(() => navigator.clipboard.readText());
  expect(instanceKey).toBe(shown);
  await checkPage(page, 'key dialog');
  await screenshot(page, 'account-key-dialog');
  await dialog.getByRole('button', { name: 'I have saved it' }).click();
  await expect(dialog).toBeHidden();
  // The secret is nowhere on the page any more: only its prefix.
  await expect(page.getByText(instanceKey)).toHaveCount(0);
  await expect(page.getByTestId('key-row-core-prod')).toContainText(instanceKey.slice(0, 8));
  await checkPage(page, 'account (organization admin)');
  await screenshot(page, 'account');
});

test('with that key, the private category stays invisible until the admin grants access from the organization page', async () => {
  const before = await api('/catalog/categories', instanceKey);
  expect(before.status).toBe(200);
  expect(before.body.categories.map((c: any) => c.slug)).not.toContain(category.slug);
  expect((await api(`/catalog/templates/${template.slug}`, instanceKey)).status).toBe(404);

  const page = adminPage;
  await page.goto('/admin/organizations');
  await checkPage(page, 'admin organizations');
  await page.getByRole('link', { name: org.name, exact: true }).click();
  await expect(page.getByRole('heading', { name: org.name })).toBeVisible();
  await page.getByLabel('Private category').selectOption({ label: category.name });
  await page.getByRole('button', { name: 'Grant access' }).click();
  await toast(page, `${org.name} can now see ${category.name}`);
  await expect(page.getByRole('row').filter({ hasText: category.name })).toBeVisible();
  await checkPage(page, 'admin organization');
  await screenshot(page, 'admin-organization');

  const after = await api('/catalog/categories', instanceKey);
  expect(after.body.categories.map((c: any) => c.slug)).toContain(category.slug);
  const got = await api(`/catalog/templates/${template.slug}`, instanceKey);
  expect(got.status).toBe(200);
  expect(got.body.name).toBe(template.name);

  // The category page lists the same grant.
  await page.goto('/admin/categories');
  await page.getByRole('link', { name: category.name, exact: true }).click();
  await expect(page.getByRole('link', { name: org.name, exact: true })).toBeVisible();
  await checkPage(page, 'admin category');
});

test('the organization admin re-issues the key (old fails, new works), then revokes it', async () => {
  const page = ownerPage;
  await page.goto('/account');
  await page.getByRole('button', { name: 'Re-issue core-prod' }).click();
  await page.getByRole('dialog', { name: 'Re-issue core-prod?' }).getByRole('button', { name: 'Re-issue key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Instance key re-issued' });
  await expect(dialog.getByText('you will not see it again')).toBeVisible();
  const newKey = (await dialog.getByTestId('secret-value').textContent())!.trim();
  expect(newKey).toMatch(/^svh_/);
  expect(newKey).not.toBe(instanceKey);
  await dialog.getByRole('button', { name: 'I have saved it' }).click();

  expect((await api('/catalog/categories', instanceKey)).status).toBe(401);
  const fresh = await api('/catalog/categories', newKey);
  expect(fresh.status).toBe(200);
  expect(fresh.body.categories.map((c: any) => c.slug)).toContain(category.slug);

  await page.getByRole('button', { name: 'Revoke core-prod' }).click();
  await page.getByRole('dialog', { name: 'Revoke core-prod?' }).getByRole('button', { name: 'Revoke key' }).click();
  await toast(page, 'revoked');
  await expect(page.getByTestId('key-row-core-prod')).toContainText('revoked');
  expect((await api('/catalog/categories', newKey)).status).toBe(401);
});

test('the API access panel gives a short-lived Hub JWT that works as a bearer token', async () => {
  const page = ownerPage;
  await page.goto('/account');
  await page.getByLabel('Valid for').selectOption('900');
  await page.getByRole('button', { name: 'Issue token' }).click();
  const panel = page.getByTestId('api-token');
  await expect(panel.getByText('you will not see it again')).toBeVisible();
  const jwt = (await panel.locator('code').first().textContent())!.trim();
  const profile = await api('/account/profile', jwt);
  expect(profile.status).toBe(200);
  expect(profile.body.profile.email).toBe(owner.email);
  expect(profile.body.profile.organization.slug).toBe(org.slug);
  expect((await api('/admin/stats', jwt)).status).toBe(403);
});

test('a member cannot see the admin pages, and the server refuses the admin calls too', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await signIn(page, member.email, member.name, { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  await ownerPage.goto('/account');
  await ownerPage.getByLabel('Email').fill(member.email);
  await ownerPage.getByRole('button', { name: 'Send invitation' }).click();
  await toast(ownerPage, `Invitation for ${member.email} created`);

  // Nobody joins without consent: the member accepts the invitation on their account page.
  await page.goto('/account');
  await page.getByRole('button', { name: `Accept invitation to ${org.name}` }).click();
  await toast(page, `You joined ${org.name}`);
  await expect(page.getByTestId('org-name')).toHaveText(org.name);
  await expect(page.getByText('Only organization admins create, re-issue and revoke keys.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Admin', exact: true })).toHaveCount(0);
  await checkPage(page, 'account (member)');
  for (const path of ['/admin', '/admin/templates', '/admin/organizations']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: 'Not allowed' })).toBeVisible();
  }
  await checkPage(page, 'not allowed');
  // Hiding the pages is not the authorization: the procedure refuses the session too.
  const res = await page.request.get('/api/trpc/admin.stats?input=%7B%7D');
  expect(res.status()).toBe(403);
  await context.close();
});

test('a category that still has templates offers no Delete, and says why', async () => {
  const page = adminPage;
  await page.goto('/admin/categories');
  const row = page.getByRole('row').filter({ hasText: category.slug });
  await expect(row.getByText(/^In use/)).toBeVisible();
  await expect(row.getByRole('button', { name: `Delete ${category.name}` })).toHaveCount(0);
  await checkPage(page, 'categories (one in use)');
  await expect(page.getByRole('link', { name: category.name, exact: true })).toBeVisible();
});

test('remaining admin pages: users (role change), instance keys, audit log', async () => {
  const page = adminPage;
  await page.goto('/admin/users');
  await page.getByLabel(`Platform role of ${owner.email}`).selectOption('admin');
  await page.getByRole('button', { name: `Apply the role of ${owner.email}` }).click();
  await page
    .getByRole('dialog', { name: `Make ${owner.name} a platform admin?` })
    .getByRole('button', { name: 'Make admin' })
    .click();
  await toast(page, `${owner.email} is now admin`);
  await page.getByLabel(`Platform role of ${owner.email}`).selectOption('user');
  await page.getByRole('button', { name: `Apply the role of ${owner.email}` }).click();
  await page
    .getByRole('dialog', { name: `Make ${owner.name} a regular user?` })
    .getByRole('button', { name: 'Make user' })
    .click();
  await toast(page, `${owner.email} is now user`);
  await checkPage(page, 'admin users');

  await page.goto('/admin/api-keys');
  await page.getByLabel('Show').selectOption('all');
  await expect(page.getByRole('row').filter({ hasText: 'core-prod' })).toContainText('revoked');
  await checkPage(page, 'admin instance keys');

  await page.goto('/admin/audit');
  await expect(page.getByText('access_grant.create').or(page.getByText('grant.create')).first()).toBeVisible();
  await checkPage(page, 'admin audit log');
  await screenshot(page, 'admin-audit');

  await page.goto(`/?category=${category.slug}`);
  await expect(page.getByRole('link', { name: new RegExp(template.name) })).toBeVisible();
  await page.goto('/');
  await screenshot(page, 'catalog', { phone: true });
});

test('sign-out ends the session', async () => {
  const page = ownerPage;
  await page.goto('/account');
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
  const cookies = await ownerContext.cookies();
  expect(cookies.find((c) => c.name.includes('session-token'))).toBeUndefined();
  await page.goto('/account');
  await expect(page).toHaveURL(/\/signin/);
});
