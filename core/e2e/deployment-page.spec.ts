/**
 * A deployment's page (issue 33) in the browser: the desired and observed state, published ports, events,
 * actions for admins and none for readonly users, logs for admins only. The Core of the global setup runs
 * without a container engine (CORE_RUNTIME=none), so the observed state is `unknown` with the reason in words;
 * the engine-side states are covered by Core's engine suite. A real Hub (demo catalog) provides the template, and
 * a newer version of it (an update the admin applies).
 */
import { hubStore, startHub, type HubProc, type HubStore } from '../../tests/loop/processes';
import { E2E } from './env';
import { checkPage, expect, openPage, signInWithPassword, test } from './helpers';

let store: HubStore;
let hub: HubProc;
let admin: string;
let deploymentId: string;
let hubAdmin: string;

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
  hub = await startHub(store, { users: ['owner@hub.test:user', 'root@hub.test:admin'], seed: true });
  const owner = hub.jwts.get('owner@hub.test')!;
  hubAdmin = hub.jwts.get('root@hub.test')!;
  await call(hub.url, 'POST', '/account/organizations', owner, { name: 'Deploy org', slug: 'deploy-org' });
  const { apiKey } = await call<{ apiKey: { key: string } }>(hub.url, 'POST', '/account/api-keys', owner, {
    name: 'e2e deployments',
  });
  admin = (await call<{ access_token: string }>(E2E.url, 'POST', '/auth/login', '', E2E.tempAdmin)).access_token;
  await call(E2E.url, 'PUT', '/settings/hub', admin, { hub_url: hub.url, instance_key: apiKey.key });
  await call(E2E.url, 'POST', '/catalog/sync', admin);
  const created = await call<{ id: string }>(E2E.url, 'POST', '/deployments', admin, {
    name: 'web-frontdoor',
    template_slug: 'nginx',
    env: { NGINX_ENTRYPOINT_QUIET_LOGS: '1' },
    secret_refs: [E2E.secret.name],
  });
  deploymentId = created.id;
});

// The other journeys share this Core: leave it without this Hub and its deployments.
test.afterAll(async () => {
  if (admin) {
    const { deployments } = await call<{ deployments: { id: string; name: string }[] }>(
      E2E.url,
      'GET',
      '/deployments?limit=100',
      admin,
    );
    for (const d of deployments.filter((d) => d.name === 'web-frontdoor'))
      await call(E2E.url, 'DELETE', `/deployments/${d.id}`, admin);
    await call(E2E.url, 'DELETE', '/settings/hub', admin);
  }
  await hub?.stop();
  await store?.drop();
});

test('an admin opens a deployment from the list: its state in words, the actions, delete asks first', async ({
  page,
}) => {
  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Deployments');
  const row = page.getByRole('row', { name: /web-frontdoor/ });
  // No engine: the list says so per row.
  await expect(row.locator('.state')).toHaveAttribute('data-state', 'unknown');
  await expect(row.locator('.state')).toHaveText('Unknown');
  await row.getByRole('link', { name: 'web-frontdoor' }).click();

  await expect(page).toHaveURL(new RegExp(`/deployments/${deploymentId}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'web-frontdoor' })).toBeVisible();
  const status = page.getByRole('region', { name: 'Status' });
  await expect(status.locator('.state').first()).toHaveText('Unknown');
  await expect(status).toContainText(/CORE_RUNTIME|container engine/);
  await expect(status.getByRole('definition').filter({ hasText: /^running$/ })).toBeVisible();
  await expect(status.getByRole('link', { name: 'nginx' })).toHaveAttribute('href', '/catalog/nginx');
  await expect(page.getByRole('region', { name: 'Published ports' })).toContainText('None published right now.');
  await expect(page.getByRole('region', { name: 'Variables' })).toContainText('NGINX_ENTRYPOINT_QUIET_LOGS');
  await expect(page.getByRole('region', { name: 'Variables' })).toContainText(E2E.secret.name);
  await expect(page.getByText(E2E.secret.value)).toHaveCount(0);

  // Logs: the admin's page asks for them, and Core says there is no engine to ask.
  const logs = page.getByRole('region', { name: 'Logs' });
  await expect(logs.getByLabel('Lines')).toHaveValue('100');
  await expect(logs.getByRole('alert')).toContainText(/no container engine/);
  await expect(logs.getByRole('checkbox', { name: 'Follow' })).toBeChecked();

  // Stop: the desired state changes at once (Core keeps it without an engine), and the action becomes Start.
  const actions = status.getByRole('group', { name: 'Actions' });
  await expect(actions.getByRole('button', { name: 'Restart web-frontdoor', exact: true })).toBeVisible();
  await expect(actions.getByRole('button', { name: 'Apply update web-frontdoor', exact: true })).toHaveCount(0);
  await actions.getByRole('button', { name: 'Stop web-frontdoor', exact: true }).click();
  await expect(status.getByRole('definition').filter({ hasText: /^stopped$/ })).toBeVisible();
  await expect(actions.getByRole('button', { name: 'Start web-frontdoor', exact: true })).toBeVisible();
  await expect(actions.getByRole('button', { name: 'Stop web-frontdoor', exact: true })).toHaveCount(0);
  // The events list the stop (the activity log's entries for this deployment).
  await expect(page.getByRole('region', { name: 'Events' }).getByRole('row', { name: /stop/ })).toBeVisible({
    timeout: 15_000,
  });
  await actions.getByRole('button', { name: 'Start web-frontdoor', exact: true }).click();
  await expect(status.getByRole('definition').filter({ hasText: /^running$/ })).toBeVisible();

  // Delete asks first, offering to delete the volumes too (off by default); cancel keeps everything.
  await actions.getByRole('button', { name: 'Delete web-frontdoor', exact: true }).click();
  const confirm = actions.getByRole('group', { name: 'Delete web-frontdoor?' });
  await expect(confirm.getByRole('checkbox', { name: /Also delete its volumes/ })).not.toBeChecked();
  await expect(confirm.getByRole('button', { name: 'Confirm delete web-frontdoor' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);

  await checkPage(page, 'Deployment page');
  // The page polls: a state written elsewhere shows without a reload.
  await call(E2E.url, 'POST', `/deployments/${deploymentId}/stop`, admin);
  await expect(status.getByRole('definition').filter({ hasText: /^stopped$/ })).toBeVisible({ timeout: 10_000 });
  await call(E2E.url, 'POST', `/deployments/${deploymentId}/start`, admin);

  // The overview counts deployments by observed state and says there is no engine.
  await openPage(page, 'Overview');
  const byState = page.getByRole('region', { name: 'Deployments by state' });
  await expect(byState).toContainText('No container engine');
  await expect(byState.getByRole('term').filter({ hasText: 'Unknown' })).toBeVisible();
});

test('a readonly user sees the status, ports and events, no actions, and a note instead of the logs', async ({
  page,
}) => {
  const logRequests: string[] = [];
  page.on('request', (r) => {
    if (/\/api\/v1\/deployments\/[^/]+\/logs/.test(r.url())) logRequests.push(r.url());
  });
  await signInWithPassword(page, E2E.readonly);
  await page.goto(`/deployments/${deploymentId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'web-frontdoor' })).toBeVisible();
  const status = page.getByRole('region', { name: 'Status' });
  await expect(status.locator('.state').first()).toHaveText('Unknown');
  await expect(page.getByRole('region', { name: 'Published ports' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Events' })).toBeVisible();
  await expect(page.getByRole('group', { name: 'Actions' })).toHaveCount(0);
  await expect(
    page.getByRole('main').getByRole('button', { name: /^(Start|Stop|Restart|Apply update|Delete)\b/ }),
  ).toHaveCount(0);
  const logs = page.getByRole('region', { name: 'Logs' });
  await expect(logs).toContainText('Logs are shown to admins only');
  await expect(logs.locator('pre')).toHaveCount(0);
  await checkPage(page, 'Deployment page (readonly)');
  expect(logRequests, 'a readonly page never asks for logs').toEqual([]);
});

test('a newer template version synced from the Hub shows as an update the admin applies', async ({ page }) => {
  // The Hub's admin publishes NGINX 1.28; Core syncs it; what runs does not change until the admin applies it.
  const { templates } = await call<{ templates: { id: string; slug: string; version: string }[] }>(
    hub.url,
    'GET',
    '/admin/templates?search=nginx',
    hubAdmin,
  );
  const nginx = templates.find((t) => t.slug === 'nginx')!;
  await call(hub.url, 'PUT', '/admin/templates', hubAdmin, { id: nginx.id, version: '1.28', image_tag: '1.28' });
  await call(E2E.url, 'POST', '/catalog/sync', admin);

  await signInWithPassword(page, E2E.admin);
  await openPage(page, 'Deployments');
  await expect(page.getByRole('row', { name: /web-frontdoor/ })).toContainText('update available');
  await page.getByRole('link', { name: 'web-frontdoor' }).click();
  const status = page.getByRole('region', { name: 'Status' });
  await expect(status).toContainText('Version 1.28 is available');
  await expect(status).toContainText('version 1.27');
  await status.getByRole('button', { name: 'Apply update web-frontdoor', exact: true }).click();
  await expect(status).toContainText('version 1.28');
  await expect(status).toContainText('up to date');
  await expect(status.getByRole('button', { name: 'Apply update web-frontdoor', exact: true })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Events' }).getByRole('row', { name: /apply update/ })).toBeVisible({
    timeout: 15_000,
  });
});
