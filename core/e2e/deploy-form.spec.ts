/**
 * The deploy form, the deployments table and the header at the Hub's standard (issue 37), at 1280 and 390 px:
 * the template picked from the synced catalog, the environment as rows across the form's width, file secrets
 * explained, success on the new deployment's own page; names kept whole and the action cell's border even; the
 * Hub's header and overview cards of one height. A real Hub (demo catalog) provides the templates.
 */
import { hubStore, startHub, type HubProc, type HubStore } from '../../tests/loop/processes';
import { E2E } from './env';
import { checkPage, expect, openPage, photograph, signInWithPassword, test } from './helpers';

let store: HubStore;
let hub: HubProc;
let admin: string;

async function call<T>(base: string, method: string, p: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  store = await hubStore();
  hub = await startHub(store, { users: ['owner@hub.test:user'], seed: true });
  const owner = hub.jwts.get('owner@hub.test')!;
  await call(hub.url, 'POST', '/account/organizations', owner, { name: 'Form org', slug: 'form-org' });
  const { apiKey } = await call<{ apiKey: { key: string } }>(hub.url, 'POST', '/account/api-keys', owner, {
    name: 'e2e deploy form',
  });
  admin = (await call<{ access_token: string }>(E2E.url, 'POST', '/auth/login', '', E2E.tempAdmin)).access_token;
  await call(E2E.url, 'PUT', '/settings/hub', admin, { hub_url: hub.url, instance_key: apiKey.key });
  await call(E2E.url, 'POST', '/catalog/sync', admin);
});

// The other journeys share this Core: leave it without this Hub and its deployment.
test.afterAll(async () => {
  if (admin) {
    const { deployments } = await call<{ deployments: { id: string; name: string }[] }>(
      E2E.url,
      'GET',
      '/deployments?limit=100',
      admin,
    );
    for (const d of deployments.filter((d) => d.name === 'pg-ui'))
      await call(E2E.url, 'DELETE', `/deployments/${d.id}`, admin);
    await call(E2E.url, 'DELETE', '/settings/hub', admin);
  }
  await hub?.stop();
  await store?.drop();
});

test('the deploy form: a template from the catalog, the environment across the form, file secrets explained, success on the new page', async ({
  page,
}) => {
  await signInWithPassword(page, E2E.admin);
  await page.goto('/deployments?template=postgresql');
  const form = page.getByRole('form', { name: 'New deployment' });
  const template = form.getByLabel('Template', { exact: true });
  await expect(template).toHaveValue('postgresql');

  // The picker searches the synced catalog by name or slug; the chosen template stays listed.
  await form.getByLabel('Find a template').fill('graf');
  await expect(template.locator('option', { hasText: 'Grafana' })).toHaveCount(1);
  await expect(template.locator('option', { hasText: 'Redis' })).toHaveCount(0);
  await expect(template).toHaveValue('postgresql');
  await form.getByLabel('Find a template').fill('');

  // The environment uses the form's width (it was a 190 px column beside an empty form).
  const env = form.getByRole('group', { name: 'Environment of PostgreSQL' });
  await expect(env).toBeVisible();
  const [formBox, envBox] = [(await form.boundingBox())!, (await env.boundingBox())!];
  expect(envBox.width).toBeGreaterThan(formBox.width * 0.9);
  // Each variable is a row: its name beside its control.
  const name = (await form.getByText('POSTGRES_PASSWORD (required)').boundingBox())!;
  const control = (await form.getByLabel('POSTGRES_PASSWORD (required)').boundingBox())!;
  expect(control.x).toBeGreaterThan(name.x + name.width);
  expect(Math.abs(control.y - name.y)).toBeLessThan(20);

  const files = form.getByRole('group', { name: 'Secrets mounted as files' });
  await expect(files).toContainText('/run/secrets/<name>');
  await expect(files.getByRole('checkbox', { name: E2E.secret.name })).toHaveAccessibleDescription(
    /written into the container as a read-only file/,
  );
  await checkPage(page, 'Deploy form');
  await photograph(page, 'deploy-form');

  await form.getByLabel('Deployment name').fill('pg-ui');
  await form.getByLabel('POSTGRES_PASSWORD (required)').selectOption(E2E.secret.name);
  await form.getByRole('button', { name: 'Create deployment' }).click();
  await expect(page).toHaveURL(/\/deployments\/[^/?]+\?created=1$/);
  await expect(page.getByRole('heading', { level: 1, name: 'pg-ui' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Deployment pg-ui created.' })).toBeVisible();
  await checkPage(page, 'A new deployment');
});

test('the deployments table keeps names whole and the action cell level; the header and cards match the Hub', async ({
  page,
}) => {
  await signInWithPassword(page, E2E.admin);
  // The overview's cards: one line each, one height.
  const cards = page.locator('.cards a');
  await expect(cards.first()).toContainText(/\d/);
  const heights = await cards.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
  expect(new Set(heights).size).toBe(1);
  expect(await cards.evaluateAll((els) => els.every((e) => e.scrollWidth <= e.clientWidth))).toBe(true);
  // The header: the mark and name, the navigation as pills, the current page marked.
  const header = page.getByRole('banner');
  await expect(header.getByRole('link', { name: 'Core' })).toBeVisible();
  await expect(header.getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
  await photograph(page, 'overview-header');

  await openPage(page, 'Deployments');
  const row = page.getByRole('row', { name: /pg-ui/ });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    // The name on one line (no "pg-/ui").
    const link = row.getByRole('link', { name: 'pg-ui' });
    expect(await link.evaluate((el) => el.getClientRects().length)).toBe(1);
    const lineHeight = await link.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 24);
    expect((await link.boundingBox())!.height).toBeLessThan(lineHeight * 1.5);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  // Every cell of the row ends on one line, the action cell too (it was a flex box with its own border).
  const bottoms = await row
    .locator('th, td')
    .evaluateAll((cells) => cells.map((c) => c.getBoundingClientRect().bottom));
  expect(new Set(bottoms.map((b) => Math.round(b))).size).toBe(1);
  await expect(header.getByRole('link', { name: 'Deployments' })).toHaveAttribute('aria-current', 'page');
  await checkPage(page, 'Deployments table');
  await photograph(page, 'deployments-table');
});
