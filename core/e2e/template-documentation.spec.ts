/**
 * Issue 37: Core's template page printed the documentation as typed (`# PostgreSQL`, pipe tables, backticks) and
 * right-aligned the Variables table's text. It now renders it with the Hub's renderer (@shared/markdown): headings
 * below the page's own, tables, code, links with rel="noopener noreferrer", and nothing of raw HTML, at 1280 and
 * 390 px, accessibility-checked. A real Hub (demo catalog) provides the templates; its admin gives one a hostile
 * documentation.
 */
import { hubStore, startHub, type HubProc, type HubStore } from '../../tests/loop/processes';
import { E2E } from './env';
import { checkPage, expect, signInWithPassword, test } from './helpers';

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

const HOSTILE = [
  '# Redis, annotated',
  '',
  '<script>window.__pwned = "script"</script>',
  '',
  'Inline <img src="x" onerror="window.__pwned = \'img\'"> and <b onclick="x()">bold</b> markup.',
  '',
  '[a trap](javascript:window.__pwned="link") and [the manual](https://redis.io/docs/).',
  '',
  '<iframe src="https://example.org"></iframe>',
].join('\n');

test.beforeAll(async () => {
  test.setTimeout(120_000);
  store = await hubStore();
  hub = await startHub(store, { users: ['docs-owner@hub.test:user', 'docs-root@hub.test:admin'], seed: true });
  const owner = hub.jwts.get('docs-owner@hub.test')!;
  const hubAdmin = hub.jwts.get('docs-root@hub.test')!;
  await call(hub.url, 'POST', '/account/organizations', owner, { name: 'Docs org', slug: 'docs-org' });
  const { apiKey } = await call<{ apiKey: { key: string } }>(hub.url, 'POST', '/account/api-keys', owner, {
    name: 'e2e documentation',
  });
  const { templates } = await call<{ templates: { id: string; slug: string }[] }>(
    hub.url,
    'GET',
    '/admin/templates?search=redis',
    hubAdmin,
  );
  const redis = templates.find((t) => t.slug === 'redis')!;
  await call(hub.url, 'PUT', '/admin/templates', hubAdmin, { id: redis.id, documentation: HOSTILE });
  admin = (await call<{ access_token: string }>(E2E.url, 'POST', '/auth/login', '', E2E.tempAdmin)).access_token;
  await call(E2E.url, 'PUT', '/settings/hub', admin, { hub_url: hub.url, instance_key: apiKey.key });
  await call(E2E.url, 'POST', '/catalog/sync', admin);
});

// The other journeys share this Core: leave it without this Hub.
test.afterAll(async () => {
  if (admin) await call(E2E.url, 'DELETE', '/settings/hub', admin);
  await hub?.stop();
  await store?.drop();
});

test('the documentation is rendered Markdown, and the Variables table reads from the left', async ({ page }) => {
  await signInWithPassword(page, E2E.admin);
  await page.goto('/catalog/postgresql');
  await expect(page.getByRole('heading', { level: 1, name: 'PostgreSQL' })).toHaveCount(1);
  const doc = page.locator('.markdown');
  // "# PostgreSQL" and "## First steps" become headings below the page's h1 and the section's h2.
  await expect(doc.getByRole('heading', { level: 3, name: 'PostgreSQL' })).toBeVisible();
  await expect(doc.getByRole('heading', { level: 4, name: 'First steps' })).toBeVisible();
  await expect(doc.locator('ol li').first()).toContainText('POSTGRES_PASSWORD');
  await expect(doc.locator('code', { hasText: 'POSTGRES_PASSWORD' }).first()).toBeVisible();
  await expect(doc).not.toContainText('# PostgreSQL');
  await expect(doc).not.toContainText('`');
  // The upstream documentation link (an autolink) leaves nothing of this page behind.
  const upstream = doc.getByRole('link', { name: 'https://hub.docker.com/_/postgres' });
  await expect(upstream).toHaveAttribute('rel', 'noopener noreferrer');

  const variables = page.getByRole('region', { name: 'Deployment settings table' });
  for (const cell of [variables.locator('thead th').nth(2), variables.locator('tbody td').nth(2)])
    expect(await cell.evaluate((el) => getComputedStyle(el).textAlign)).toBe('left');
  await checkPage(page, 'Template page with rendered documentation');
});

test('documentation from the Hub runs no script and carries no raw HTML or javascript: link', async ({ page }) => {
  const dialogs: string[] = [];
  page.on('dialog', (d) => void d.dismiss().then(() => dialogs.push(d.message())));
  await signInWithPassword(page, E2E.admin);
  await page.goto('/catalog/redis');
  const doc = page.locator('.markdown');
  await expect(doc.getByRole('heading', { level: 3, name: 'Redis, annotated' })).toBeVisible();
  await expect(doc).toContainText('and bold markup.');
  expect(await doc.locator('script, img, iframe, [onclick], [onerror], [style]').count()).toBe(0);
  expect(await doc.locator('a[href^="javascript:" i]').count()).toBe(0);
  await expect(doc.getByRole('link', { name: 'the manual' })).toHaveAttribute('rel', 'noopener noreferrer');
  await doc.getByText('a trap').click();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  await checkPage(page, 'Template page with hostile documentation');
});
