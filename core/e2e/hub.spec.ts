/**
 * Core ↔ Hub in the browser: a real Hub process (tests/fixtures/hub-process.ts, demo catalog, embedded
 * database) beside the Core of the global setup. An admin pastes the instance key into Core's Hub page; the
 * catalog appears; a deployment is created from a template. The pages pass axe at desktop and phone width.
 */
import { hubStore, startHub, type HubProc, type HubStore } from '../../tests/loop/processes';
import { E2E } from './env';
import { checkPage, expect, openPage, photograph, signInWithPassword, test } from './helpers';

let store: HubStore;
let hub: HubProc;
let key: { id: string; key: string; key_prefix: string };

async function hubCall(p: string, token: string, body?: unknown) {
  const res = await fetch(`${hub.url}/api/v1${p}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${p} → ${res.status} ${await res.text()}`);
  return res.json();
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  store = await hubStore();
  hub = await startHub(store, { users: ['owner@hub.test:user'], seed: true });
  const owner = hub.jwts.get('owner@hub.test')!;
  await hubCall('/account/organizations', owner, { name: 'E2E org', slug: 'e2e-org' });
  key = (await hubCall('/account/api-keys', owner, { name: 'e2e core' })).apiKey;
});

test.afterAll(async () => {
  await hub?.stop();
  await store?.drop();
});

test('an admin connects Core to the Hub with an instance key, the catalog appears, a deployment is created', async ({
  page,
}) => {
  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Hub');
  await page.getByLabel('Hub URL').fill(hub.url);
  await page.getByLabel('Instance key').fill(key.key);
  await page.getByRole('button', { name: 'Connect' }).click();
  const connection = page.getByRole('region', { name: 'Hub connection' });
  await expect(connection.getByText('Connected', { exact: true })).toBeVisible();
  await expect(connection.getByText(`${key.key_prefix}…`)).toBeVisible();
  await expect(page.getByText(key.key)).toHaveCount(0);
  // The first sync runs in the background; the page follows it.
  await expect(connection.getByText('E2E org')).toBeVisible();
  await expect(connection.locator('dd').filter({ hasText: /^\d+$/ })).not.toHaveText('0', { timeout: 20_000 });
  await checkPage(page, 'Hub page');

  await openPage(page, 'Catalog');
  await expect(page.getByRole('row', { name: /Grafana/ })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search' }).fill('postgre');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('row', { name: /PostgreSQL/ })).toBeVisible();
  await expect(page.getByRole('row', { name: /Grafana/ })).toHaveCount(0);
  await checkPage(page, 'Catalog page');

  await page.getByRole('link', { name: 'Deploy PostgreSQL' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Deployments' })).toBeVisible();
  await expect(page.getByLabel('Template', { exact: true })).toHaveValue('postgresql');
  await page.getByLabel('Deployment name').fill('orders-db');
  // A credential-named variable offers only a secret picker (a literal password would be refused).
  await expect(page.getByRole('textbox', { name: 'POSTGRES_PASSWORD (required)' })).toHaveCount(0);
  await page.getByLabel('POSTGRES_PASSWORD (required)').selectOption(E2E.secret.name);
  await page.getByRole('checkbox', { name: E2E.secret.name }).check();
  await page.getByRole('button', { name: 'Create deployment' }).click();
  // Created: the deployment's own page says so.
  await expect(page.getByRole('heading', { level: 1, name: 'orders-db' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Deployment orders-db created.' })).toBeVisible();
  await openPage(page, 'Deployments');
  const row = page.getByRole('row', { name: /orders-db/ });
  await expect(row).toContainText('postgresql');
  // No container engine in this run (CORE_RUNTIME=none): the observed state says so.
  await expect(row.locator('.state')).toHaveAttribute('data-state', 'unknown');
  await expect(row.getByRole('definition').filter({ hasText: `secret ${E2E.secret.name}` })).toBeVisible();
  await expect(page.getByText(E2E.secret.value)).toHaveCount(0);
  await checkPage(page, 'Deployments page');

  // Edit: the form opens with the deployment's variables; the binding stays, a variable changes.
  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit deployment orders-db' });
  await expect(edit.getByLabel('POSTGRES_PASSWORD (required)')).toHaveValue(E2E.secret.name);
  await edit.getByRole('checkbox', { name: E2E.secret.name }).uncheck();
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toHaveCount(0);
  await expect(page.getByRole('row', { name: /orders-db/ }).getByText('files')).toHaveCount(0);
});

test('the catalog sorts by name whatever the case, filters by category, and each template has its page', async ({
  page,
}) => {
  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Catalog');
  // The heading shows before the catalog's rows have loaded: wait for them, then read them.
  const links = page.getByRole('rowheader').getByRole('link');
  await expect(links.nth(3)).toBeVisible();
  const names = await links.allTextContents();
  expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' })));
  // Descriptions are not bold.
  const weight = await page
    .locator('.list tbody th .description')
    .first()
    .evaluate((el) => getComputedStyle(el).fontWeight);
  expect(Number(weight)).toBeLessThan(600);

  const category = page.getByLabel('Category');
  await expect(category.locator('option').nth(1)).toBeAttached(); // the categories load beside the rows
  const option = (await category.locator('option').allTextContents())[1]!;
  await category.selectOption({ label: option });
  await expect(page).toHaveURL(/\/catalog\?category=/);
  const count = Number(/\((\d+)\)$/.exec(option)![1]);
  await expect(page.getByRole('rowheader')).toHaveCount(Math.min(count, 50));

  await page.setViewportSize({ width: 390, height: 844 });
  // At phone width no card shows a stray ':' before Deploy, and the Search button keeps its distance from the field.
  const before = await page
    .locator('.list td.no-label')
    .first()
    .evaluate((el) => getComputedStyle(el, '::before').content);
  expect(['none', 'normal']).toContain(before);
  const field = await page.getByRole('searchbox', { name: 'Search' }).boundingBox();
  const button = await page.getByRole('button', { name: 'Search', exact: true }).boundingBox();
  expect(button!.x - (field!.x + field!.width)).toBeGreaterThanOrEqual(6);
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByLabel('Category').selectOption({ label: 'All categories' });
  await page.getByRole('searchbox', { name: 'Search' }).fill('postgre');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('rowheader').getByRole('link', { name: 'PostgreSQL' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'PostgreSQL' })).toBeVisible();
  await expect(page).toHaveURL(/\/catalog\/postgresql$/);
  for (const section of ['Variables', 'Ports and volumes', 'Resources'])
    await expect(page.getByRole('region', { name: section })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Variables' }).getByRole('row').nth(1)).toContainText('required');
  await checkPage(page, 'Template page');
  await page.getByRole('link', { name: 'Deploy PostgreSQL' }).click();
  await expect(page.getByLabel('Template', { exact: true })).toHaveValue('postgresql');

  // The overview with a Hub connected, a deployment recorded and some activity.
  await openPage(page, 'Overview');
  await expect(
    page.getByRole('region', { name: 'Hub connection' }).getByText('connected', { exact: true }),
  ).toBeVisible();
  // This run has no container engine (CORE_RUNTIME=none): the overview says so and counts the deployment unknown.
  const byState = page.getByRole('region', { name: 'Deployments by state' });
  await expect(byState).toContainText('No container engine');
  await expect(byState.getByRole('term')).toHaveText(['Unknown']);
  await checkPage(page, 'Overview with a Hub');
  await photograph(page, 'core-overview-hub');
});

test('a readonly user sees the catalog and deployments but no write controls', async ({ page }) => {
  await signInWithPassword(page, E2E.readonly);
  await openPage(page, 'Deployments');
  await expect(page.getByRole('row', { name: /orders-db/ })).toBeVisible();
  await expect(page.getByRole('row', { name: /orders-db/ })).toContainText(`secret ${E2E.secret.name}`);
  await expect(page.getByText(E2E.secret.value)).toHaveCount(0);
  await expect(page.getByRole('form', { name: 'New deployment' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await openPage(page, 'Hub');
  await expect(page.getByRole('form', { name: 'Connect to a Hub' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Sync now' })).toHaveCount(0);
  await openPage(page, 'Catalog');
  await expect(page.getByRole('link', { name: /^Deploy / })).toHaveCount(0);
});
