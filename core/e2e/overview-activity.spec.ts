/**
 * Issue 21 in the browser: the overview shows the Hub connection, deployments, machine-token requests and MCP
 * calls (charts with their tables) and the latest activity; the activity log shows who changed what, with
 * before → after, filters kept in the URL; both pages pass axe at 1280 and 390 px, light and dark.
 * With CORE_E2E_SCREENSHOTS=<dir>, the overview and the activity log are photographed there once painted.
 */
import { E2E } from './env';
import {
  checkPage,
  expect,
  expectChartsNamed,
  openPage,
  photograph,
  signInWithPassword,
  storedSession,
  test,
} from './helpers';

test('the overview charts real traffic and the activity log shows who changed what', async ({ page }) => {
  await signInWithPassword(page, E2E.admin);
  const { access_token } = await storedSession(page);
  const api = (method: string, p: string, token: string, body?: unknown) =>
    fetch(E2E.url + p, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  // Another spec may have left Core connected to a Hub that is gone by now: this page starts disconnected.
  await api('DELETE', '/api/v1/settings/hub', access_token);
  // …and may have recorded deployments: this page starts with none.
  const existing = (await (await api('GET', '/api/v1/deployments?limit=100', access_token)).json()) as {
    deployments?: { id: string }[];
  };
  for (const d of existing.deployments ?? []) await api('DELETE', `/api/v1/deployments/${d.id}`, access_token);

  // Other specs' machine tokens made requests (and were refused) earlier in this run: count from here.
  type Overview = { machine_token_requests: { days: Record<'4xx' | '5xx', number>[] } };
  const refusedSoFar = async () =>
    (
      (await (await api('GET', '/api/v1/overview', access_token)).json()) as Overview
    ).machine_token_requests.days.reduce((sum, d) => sum + d['4xx'] + d['5xx'], 0);
  // Core writes the machine-token audit in batches (every 250 ms): wait until the earlier specs' requests are in.
  let refusedBefore = await refusedSoFar();
  for (let settled = false; !settled;) {
    await new Promise((r) => setTimeout(r, 600));
    const now = await refusedSoFar();
    settled = now === refusedBefore;
    refusedBefore = now;
  }

  // Traffic: a machine token's requests (ok and refused) and MCP calls (ok and refused).
  const issued = await (
    await api('POST', '/api/v1/tokens', access_token, { name: 'e2e-reader', role: 'readonly' })
  ).json();
  for (let i = 0; i < 6; i++) expect((await api('GET', '/api/v1/secrets', issued.token)).status).toBe(200);
  for (let i = 0; i < 2; i++)
    expect((await api('PUT', '/api/v1/secrets/nope', issued.token, { value: 'x' })).status).toBe(403);
  const mcp = (name: string, args: object) =>
    fetch(`${E2E.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${issued.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
  for (const [name, args] of [
    ['list_secrets', {}],
    ['list_secrets', {}],
    ['read_secret', { name: E2E.secret.name }],
  ] as const)
    expect((await mcp(name, args)).status).toBe(200);
  await api('PUT', `/api/v1/secrets/${E2E.secret.name}`, access_token, {
    value: 'rotated-e2e-value',
    description: 'Registry password (rotated)',
  });

  await expect.poll(refusedSoFar).toBe(refusedBefore + 2);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  const hub = page.getByRole('region', { name: 'Hub connection' });
  await expect(hub.getByText('not connected')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Deployments by state' })).toContainText('No deployments yet');
  // Each chart is one image named by its totals (the 4xx and 5xx are the refused and failed), and the same numbers
  // as a table.
  const requests = page.getByRole('img', { name: /^Machine-token requests per day, last 30 days: [\d,]+ in total / });
  await expect(requests).toBeVisible();
  const name = (await requests.getAttribute('aria-label'))!;
  const [, x4, x5] = /4xx (\d+), 5xx (\d+)\)/.exec(name)!;
  expect(Number(x4) + Number(x5), name).toBe(refusedBefore + 2);
  await expect(
    page.getByRole('img', {
      name: /^MCP tool calls by tool, last 30 days: 3 in total \(OK 2, Refused 1, Failed 0\); list_secrets 2, read_secret 1\.$/,
    }),
  ).toBeVisible();
  await expectChartsNamed(page, 2);
  await page.getByText('The numbers as a table').nth(1).click();
  await expect(
    page.getByRole('table', { name: 'MCP tool calls by tool' }).getByRole('row', { name: /read_secret 0 1 0/ }),
  ).toBeVisible();
  await expect(
    page.getByRole('table', { name: 'Requests per machine token' }).getByRole('row', { name: /e2e-reader/ }),
  ).toContainText('2');
  const recent = page.getByRole('region', { name: 'Recent activity' });
  await expect(recent.getByRole('row').filter({ hasText: 'secret update' }).first()).toContainText(
    'Registry password (rotated)',
  );
  await checkPage(page, 'overview');
  await page.emulateMedia({ colorScheme: 'dark' });
  await checkPage(page, 'overview (dark)');
  await page.emulateMedia({ colorScheme: 'light' });
  await photograph(page, 'core-overview');

  await openPage(page, 'Activity');
  const row = page.getByRole('row').filter({ hasText: 'machine token create' }).filter({ hasText: 'e2e-reader' });
  await expect(row).toContainText(E2E.admin.username);
  await expect(row).toContainText('readonly');
  // The secret's value never appears; that it changed does.
  const secretRow = page.getByRole('row').filter({ hasText: 'secret update' }).first();
  await expect(secretRow).toContainText('changed');
  await expect(page.locator('body')).not.toContainText('rotated-e2e-value');
  await expect(page.locator('body')).not.toContainText(E2E.secret.value);

  // Filters live in the URL and survive a reload.
  await page.getByLabel('What').selectOption({ label: 'Machine tokens' });
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/\/activity\?target_type=machine_token/);
  await page.reload();
  await expect(page.getByLabel('What')).toHaveValue('machine_token');
  await expect(page.getByRole('row').filter({ hasText: 'secret update' })).toHaveCount(0);
  await expect(row).toBeVisible();
  await checkPage(page, 'activity');
  await page.emulateMedia({ colorScheme: 'dark' });
  await checkPage(page, 'activity (dark)');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page).toHaveURL(/\/activity$/);
  await photograph(page, 'core-activity');
});

test('the overview links the API reference, rendered from Core’s own document with files Core serves', async ({
  page,
}) => {
  await signInWithPassword(page, E2E.admin);
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  await page.getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(/\/api\/v1\/reference$/);
  await expect(page.getByText('/api/v1/deployments', { exact: true }).first()).toBeVisible();
  await expect(page.getByText('/api/v1/activity', { exact: true }).first()).toBeVisible();
  // No CDN: every file came from Core itself.
  expect(requested.filter((url) => !url.startsWith(E2E.url) && !url.startsWith('data:'))).toEqual([]);
});
