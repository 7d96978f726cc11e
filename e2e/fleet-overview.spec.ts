/**
 * The fleet at a glance (issue 21) from real traffic: an organization's three Core instances report their
 * version, poll the catalog (200s, 304s, a full sync), read templates, open tickets and are called through the
 * Hub's /mcp proxy by a real HTTP upstream (answers, a refusal by the instance, an instance without an MCP URL).
 * One instance stops polling after two polls 1 s apart and becomes stale (3 × its 1 s interval); one never
 * syncs. The platform admin's overview and the organization admin's account page show the charts and the
 * health table; axe stays clean at 1280 and 390 px; screenshots in docs/screenshots after the data is painted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { checkPage, expectChartsNamed, screenshot, signedIn, signIn, uniqueSuffix } from './helpers';

test.describe.configure({ mode: 'serial' });

const run = process.env.E2E_RUN ?? uniqueSuffix();
// The journeys' admin (same identity in every file of a run): the first to sign in becomes superadmin.
const admin = { email: `admin-${run}@example.test`, name: 'Ada Admin' };
const owner = { email: `fleet-owner-${run}@example.test`, name: 'Fay Fleet' };
const orgName = `Fleetco ${run}`;
const names = { live: `core-live-${run}`, stale: `core-stale-${run}`, quiet: `core-quiet-${run}` };
const API = `http://127.0.0.1:${process.env.E2E_PORT ?? 3210}/api/v1`;
const HUB = `http://127.0.0.1:${process.env.E2E_PORT ?? 3210}`;

let adminContext: BrowserContext;
let ownerContext: BrowserContext;
let adminPage: Page;
let ownerPage: Page;
let upstream: http.Server;
let upstreamUrl = '';
const secrets: Record<string, string> = {};

async function rest(
  path: string,
  token: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${API}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, etag: res.headers.get('etag'), body: (await res.json().catch(() => null)) as any };
}

async function mcp(token: string, method: string) {
  const res = await fetch(`${HUB}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** tRPC with the page's session cookie, as the dashboard calls it. */
async function trpcMutation(page: Page, path: string, input: unknown) {
  const res = await page.request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).result.data;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function createKey(page: Page, name: string) {
  await page.getByLabel('New key name').fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Instance key created' });
  const secret = (await dialog.getByTestId('secret-value').textContent())!.trim();
  expect(secret).toMatch(/^svh_/);
  await dialog.getByRole('button', { name: 'I have saved it' }).click();
  return secret;
}

async function newPage(browser: Browser) {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

test.beforeAll(async ({ browser }) => {
  // A real MCP endpoint over HTTP: answers every JSON-RPC request, refuses the method "forbidden" with a 403.
  upstream = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const rpc = JSON.parse(raw || '{}') as { id?: number; method?: string };
      if (rpc.method === 'forbidden') {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: rpc.id ?? null,
            error: { code: -32001, message: 'not allowed for this person' },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: rpc.id ?? null,
          result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'e2e-core', version: '1' } },
        }),
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;

  ({ context: adminContext, page: adminPage } = await newPage(browser));
  await signedIn(adminPage, admin.email, admin.name);
  ({ context: ownerContext, page: ownerPage } = await newPage(browser));
  await signIn(ownerPage, owner.email, owner.name, { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  await ownerPage.getByLabel('Organization name').fill(orgName);
  await ownerPage.getByRole('button', { name: 'Create organization' }).click();
  await expect(ownerPage.getByTestId('org-name')).toHaveText(orgName);
  for (const [k, name] of Object.entries(names)) secrets[k] = await createKey(ownerPage, name);
});

test.afterAll(async () => {
  await adminContext?.close();
  await ownerContext?.close();
  await new Promise((r) => upstream?.close(r));
});

test('instances generate real traffic: reports, polls, a full sync, reads, tickets and MCP calls', async () => {
  const { live, stale, quiet } = secrets as Record<keyof typeof names, string>;
  expect(
    (
      await rest('/instance-info', live!, {
        method: 'PUT',
        body: { version: '1.4.0', base_url: 'https://core-live.example.test', mcp_url: upstreamUrl },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await rest('/instance-info', stale!, {
        method: 'PUT',
        body: { version: '1.3.2', base_url: 'https://core-stale.example.test' },
      })
    ).status,
  ).toBe(200);
  expect((await rest('/instance-info', quiet!, { method: 'PUT', body: { version: '1.4.0' } })).status).toBe(200);

  // The stale one: two polls ~1 s apart (its interval: the Hub rounds the gap to whole seconds; 0.8 s plus the
  // request stays under 1.5 s), then silence: stale once 3 s have passed.
  const since = new Date(Date.now() - 86_400_000).toISOString();
  const poll = (key: string, etag?: string | null) =>
    rest(`/catalog/templates/updates?since=${encodeURIComponent(since)}`, key, {
      headers: etag ? { 'if-none-match': etag } : {},
    });
  expect((await poll(stale!)).status).toBe(200);
  await sleep(800);
  expect((await poll(stale!)).status).toBe(200);
  const staleAfter = Date.now() + 3000;

  // The live one: a full sync (first page), polls answered 304, template reads.
  expect((await rest('/catalog/templates?page=1&limit=100', live!)).status).toBe(200);
  const first = await poll(live!);
  expect(first.status).toBe(200);
  for (const slug of ['postgresql', 'postgresql', 'redis', 'grafana', 'postgresql']) {
    expect((await rest(`/catalog/templates/${slug}`, live!)).status).toBe(200);
  }

  // Tickets: two opened, the admin closes one.
  const t1 = await rest('/support/tickets', live!, {
    method: 'POST',
    body: { subject: 'Sync is slow', body: 'Since the upgrade.' },
  });
  expect(t1.status).toBe(200);
  expect(
    (await rest('/support/tickets', live!, { method: 'POST', body: { subject: 'DNS', body: 'Record missing.' } }))
      .status,
  ).toBe(200);
  await trpcMutation(adminPage, 'support.setTicketStatus', { id: t1.body.ticket.id, status: 'closed' });

  // MCP through the Hub with personal access tokens minted by the owner.
  const keys = (await (await ownerPage.request.get('/api/trpc/account.listApiKeys?input=%7B%7D')).json()).result.data
    .apiKeys as { id: string; name: string }[];
  const idOf = (name: string) => keys.find((k) => k.name === name)!.id;
  const patLive = (await trpcMutation(ownerPage, 'tokens.create', { name: 'assistant', instance_id: idOf(names.live) }))
    .token.token as string;
  const patQuiet = (
    await trpcMutation(ownerPage, 'tokens.create', { name: 'assistant-2', instance_id: idOf(names.quiet) })
  ).token.token as string;
  for (let i = 0; i < 4; i++) expect(await mcp(patLive, 'initialize')).toBe(200);
  for (let i = 0; i < 2; i++) expect(await mcp(patLive, 'forbidden')).toBe(403);
  for (let i = 0; i < 2; i++) expect(await mcp(patQuiet, 'tools/list')).toBe(503);

  // Keep the live one polling (304s 1.5 s apart: a 2 s interval, fresh for 6 s after each) while the stale one's
  // 3 × 1 s pass.
  do {
    await sleep(1500);
    expect((await poll(live!, first.etag)).status).toBe(304);
  } while (Date.now() < staleAfter);
  await sleep(1000); // the batched writes' flush (MCP calls 500 ms, poll marks 1 s)
});

test('the platform admin sees the fleet: charts with table equivalents, versions, health, URL filters', async () => {
  test.setTimeout(300_000); // axe at two widths and eight full-page screenshots
  const page = adminPage;
  await page.goto(`/admin?search=${encodeURIComponent(run)}`);
  await expect(page.getByRole('heading', { name: 'Admin overview' })).toBeVisible();
  await expect(page.getByTestId(`health-${names.stale}`)).toContainText('stale');
  await expect(page.getByTestId(`health-${names.quiet}`)).toContainText('never');
  await expect(page.getByTestId(`health-${names.live}`)).toContainText('fresh');
  await expect(page.getByTestId(`health-${names.live}`)).toContainText('6 (4 ok, 2 refused, 0 failed)');
  await expect(page.getByTestId(`health-${names.live}`)).toContainText('1.4.0');
  await expect(page.getByTestId('chart-downloads-summary')).toContainText(/Downloads: [1-9]/);
  await expect(page.getByTestId('chart-mcp-summary')).toContainText(/OK: [4-9]/);
  await expect(page.getByTestId('chart-tickets-summary')).toContainText(/Opened: [2-9]\d* · Closed: [1-9]/);
  // Each chart is one image named by a sentence with its totals (checkPage checks them against the tables too).
  await expect(
    page.getByRole('img', { name: /^Template downloads, last 30 days: [1-9][\d,]* in total, peak / }),
  ).toBeVisible();
  await expect(page.getByRole('img', { name: /^Active instances, last 30 days: at most [1-9]/ })).toBeVisible();
  await expectChartsNamed(page, 4);
  await expect(page.getByTestId('versions')).toContainText('1.3.2');
  await expect(page.getByRole('link', { name: 'PostgreSQL' }).first()).toBeVisible();
  // The table equivalent of a chart.
  await page.getByTestId('chart-mcp').locator('xpath=..').getByText('Show as table').click();
  await expect(page.getByRole('table', { name: /MCP calls by outcome, by day/ })).toBeVisible();
  await page.getByTestId('chart-mcp').locator('xpath=..').getByText('Show as table').click();
  await checkPage(page, 'admin fleet overview');
  await screenshot(page, 'admin-fleet-overview', { phone: true });

  // (By now the live one may be stale too: it polled every ~2 s and stopped.)
  await page.getByLabel('Freshness').selectOption('never');
  await expect(page).toHaveURL(/freshness=never/);
  await expect(page.getByTestId(`health-${names.quiet}`)).toBeVisible();
  await expect(page.getByTestId(`health-${names.live}`)).toHaveCount(0);
  await page.reload();
  await expect(page.getByLabel('Freshness')).toHaveValue('never');
  await expect(page.getByTestId(`health-${names.quiet}`)).toBeVisible();
  await expect(page.getByTestId(`health-${names.stale}`)).toHaveCount(0);
});

test('an organization admin sees the same for their own instances only, on the account page', async () => {
  test.setTimeout(300_000);
  const page = ownerPage;
  await page.goto('/account');
  await expect(page.getByRole('heading', { name: 'Your instances' })).toBeVisible();
  await expect(page.getByTestId(`health-${names.stale}`)).toContainText('stale');
  await expect(page.getByTestId(`health-${names.quiet}`)).toContainText('never');
  await expect(page.getByTestId(`health-${names.live}`)).toContainText('1.4.0');
  // Only this organization's instances: exactly its three rows, no organization column.
  await expect(page.locator('[data-testid^="health-"]')).toHaveCount(3);
  await expect(page.getByTestId('chart-downloads-summary')).toContainText('Downloads: 5');
  await expect(page.getByTestId('chart-tickets-summary')).toContainText('Opened: 2 · Closed: 1');
  await expect(page.getByTestId('chart-mcp-summary')).toContainText(
    'OK: 4 · Refused by Hub: 2 · Refused by instance: 2 · Failed upstream: 0',
  );
  await expect(page.getByTestId('chart-downloads')).toHaveAttribute(
    'aria-label',
    /^Template downloads, last 30 days: 5 in total, peak 5 on \d\d-\d\d\.$/,
  );
  await expect(page.getByTestId('chart-mcp')).toHaveAttribute(
    'aria-label',
    /^MCP calls by outcome, last 30 days: 8 in total \(OK 4, Refused by Hub 2, Refused by instance 2, Failed upstream 0\), peak 8 on /,
  );
  await expect(page.getByTestId('chart-tickets')).toHaveAttribute(
    'aria-label',
    /^Support tickets, last 30 days: 3 in total \(Opened 2, Closed 1\), peak 3 on /,
  );
  await expectChartsNamed(page, 4);
  await checkPage(page, 'account fleet');
  await page.getByRole('heading', { name: 'Your instances' }).scrollIntoViewIfNeeded();
  await screenshot(page, 'account-fleet', { phone: true });
});

test("a template page leads the organization's members to their instances' deploy forms (issue 37)", async () => {
  // Reported base URLs (the traffic test reports them too; this test also runs alone).
  for (const k of ['live', 'stale'] as const)
    expect(
      (
        await rest('/instance-info', secrets[k]!, {
          method: 'PUT',
          body: { base_url: `https://core-${k}.example.test` },
        })
      ).status,
    ).toBe(200);
  const page = ownerPage;
  await page.goto('/templates/postgresql');
  const links = page.getByRole('list', { name: "Your organization's Core instances" }).getByRole('link');
  // One link per instance with a base URL (core-quiet reported none), to its deploy form for this template.
  await expect(links).toHaveCount(2);
  await expect(page.getByRole('link', { name: `Deploy on ${names.live}` })).toHaveAttribute(
    'href',
    'https://core-live.example.test/deployments?template=postgresql',
  );
  await expect(page.getByRole('link', { name: `Deploy on ${names.stale}` })).toHaveAttribute(
    'href',
    'https://core-stale.example.test/deployments?template=postgresql',
  );
  // The commands name where $CORE_TOKEN comes from, with the instance's own URL.
  const commands = page.locator('pre', { hasText: 'CORE_TOKEN' });
  await expect(commands).toContainText("a Core admin machine token (svm_…), from Core's Machine tokens");
  await expect(commands).toContainText('C=https://core-');
  await checkPage(page, 'template page with deploy links');

  // Someone outside the organization (the platform admin has none) sees no such link.
  await adminPage.goto('/templates/postgresql');
  await expect(adminPage.getByRole('heading', { level: 1, name: 'PostgreSQL' })).toBeVisible();
  await expect(adminPage.getByRole('link', { name: /^Deploy on / })).toHaveCount(0);
});
