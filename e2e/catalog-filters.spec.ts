/**
 * The public catalog's filters live in the URL, and the controls are driven from it: category chips and the
 * category select are one state, search runs as you type (debounced), tags are links, reload and Back keep every
 * filter, a page past the end says so. The template page: breadcrumb, copy buttons, the references Core needs.
 * Signed out, on the demo catalog of global-setup (29 public templates, 24 a page): it signs nobody in, so the
 * journeys' "first person to sign in becomes superadmin" still holds when this file runs first.
 */
import { expect, test, type Page } from '@playwright/test';
import { checkPage, gotoBeforeHydration, waitForHydration } from './helpers';

const SEARCH_DELAY_MS = 300;

function filters(page: Page) {
  const form = page.getByRole('search', { name: 'Catalog filters' });
  return {
    search: form.getByLabel('Search'),
    category: form.getByLabel('Category'),
    tags: form.getByLabel('Tags'),
    featured: form.getByLabel('Featured only'),
    chip: (name: string) =>
      page.getByRole('navigation', { name: 'Categories' }).getByRole('link', { name: new RegExp(`^${name}\\b`) }),
    currentChip: () => page.getByRole('navigation', { name: 'Categories' }).locator('[aria-current="page"]'),
  };
}

function query(page: Page) {
  return Object.fromEntries(new URL(page.url()).searchParams);
}

test('category chips and the select are one state; every filter is in the URL; reload and Back keep them', async ({
  page,
}) => {
  const f = filters(page);
  // 1: a shared link.
  await page.goto('/?category=databases');
  await expect(f.category).toHaveValue('databases');
  await expect(f.currentChip()).toHaveText(/^Databases/);
  await expect(page.getByRole('link', { name: 'MariaDB', exact: true })).toBeVisible();

  // 2: a chip changes the select too (they used to disagree: the form kept sending "databases").
  await f.chip('Monitoring').click();
  await expect(page).toHaveURL(/\/\?category=monitoring$/);
  await expect(f.category).toHaveValue('monitoring');
  await expect(f.currentChip()).toHaveText(/^Monitoring/);

  // 3: typing searches, after the debounce, within the chosen category; no Enter, no Apply.
  await f.search.pressSequentially('gra', { delay: 40 });
  await expect(page).toHaveURL(/search=gra/);
  const before = Date.now();
  await f.search.press('f');
  await page.waitForURL((url) => url.searchParams.get('search') === 'graf');
  expect(Date.now() - before, 'the search waits for the typing to pause').toBeGreaterThanOrEqual(SEARCH_DELAY_MS - 50);
  expect(query(page)).toEqual({ category: 'monitoring', search: 'graf' });
  await expect(page.getByRole('link', { name: 'Grafana', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Prometheus', exact: true })).toHaveCount(0);
  await expect(page.getByText(/^\d+ templates?$/)).toHaveText('1 template');

  // 4 and 5: the select moves the chips, and keeps the search.
  await f.category.selectOption('');
  await expect(page).toHaveURL(/\/\?search=graf$/);
  await expect(f.currentChip()).toHaveText('All');
  await expect(f.search).toHaveValue('graf');
  await f.category.selectOption('monitoring');
  await expect(page).toHaveURL(/category=monitoring/);
  await expect(f.currentChip()).toHaveText(/^Monitoring/);

  // 6 and 7: tags (typed, debounced) and featured.
  await f.tags.pressSequentially('metrics', { delay: 30 });
  await page.waitForURL((url) => url.searchParams.get('tags') === 'metrics');
  await f.featured.check();
  await page.waitForURL((url) => url.searchParams.get('featured') === 'true');
  expect(query(page)).toEqual({ search: 'graf', category: 'monitoring', tags: 'metrics', featured: 'true' });
  await expect(page.getByRole('link', { name: 'Grafana', exact: true })).toBeVisible();

  // Reload: every control shows the URL's filters.
  await page.reload();
  await expect(f.search).toHaveValue('graf');
  await expect(f.category).toHaveValue('monitoring');
  await expect(f.currentChip()).toHaveText(/^Monitoring/);
  await expect(f.tags).toHaveValue('metrics');
  await expect(f.featured).toBeChecked();
  await expect(page.getByRole('link', { name: 'Grafana', exact: true })).toBeVisible();
  await checkPage(page, 'catalog with every filter');

  // Back walks the deliberate changes, and the controls follow the URL.
  await page.goBack();
  await expect(page).toHaveURL(/tags=metrics/);
  await expect(page).not.toHaveURL(/featured/);
  await expect(f.featured).not.toBeChecked();
  await page.goBack();
  expect(query(page)).toEqual({ search: 'graf', category: 'monitoring' });
  await expect(f.tags).toHaveValue('');
  await page.goBack();
  await expect(page).toHaveURL(/\/\?search=graf$/);
  await expect(f.category).toHaveValue('');
  await expect(f.currentChip()).toHaveText('All');
  await expect(f.search).toHaveValue('graf');
  // One burst of typing ("gra", pause, "f") is one history entry: Back leaves the search, not one letter.
  await page.goBack();
  expect(query(page)).toEqual({ category: 'monitoring', search: 'graf' });
  await page.goBack();
  await expect(page).toHaveURL(/\/\?category=monitoring$/);
  await expect(f.search).toHaveValue('');
  await expect(f.category).toHaveValue('monitoring');
  await page.goBack();
  await expect(page).toHaveURL(/\/\?category=databases$/);
  await expect(f.category).toHaveValue('databases');
  await expect(f.currentChip()).toHaveText(/^Databases/);
});

const FILTER_FORM = 'form[role="search"]';

test('Enter and Apply send the filters at once', async ({ page }) => {
  const f = filters(page);
  await page.goto('/');
  await waitForHydration(page, FILTER_FORM);
  await f.search.fill('postgres');
  await f.search.press('Enter');
  await expect(page).toHaveURL(/\/\?search=postgres$/);
  await expect(page.getByRole('link', { name: 'PostgreSQL', exact: true })).toBeVisible();
  await expect(page.getByText(/^\d+ templates?$/)).toHaveText('1 template');

  // Apply sends what is typed in both boxes at once too.
  await f.tags.fill('cache');
  await f.search.fill('');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/\/\?tags=cache$/);
  await expect(page.getByRole('link', { name: 'Redis', exact: true })).toBeVisible();
});

test('what is typed before the page is interactive is kept and sent', async ({ page }) => {
  const loading = await gotoBeforeHydration(page, '/');
  const f = filters(page);
  await f.search.fill('postgres');
  await loading.release(FILTER_FORM);
  // Adopted as if typed now: the debounced write sends it, and the box keeps it.
  await expect(page).toHaveURL(/\/\?search=postgres$/);
  await expect(f.search).toHaveValue('postgres');
  await expect(page.getByText(/^\d+ templates?$/)).toHaveText('1 template');
});

test('tag badges are links that filter the catalog, on cards and on the template page', async ({ page }) => {
  const f = filters(page);
  await page.goto('/');
  const ollama = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Ollama', exact: true }) });
  await ollama.getByRole('link', { name: 'Tag gpu' }).click();
  await expect(page).toHaveURL(/\/\?tags=gpu$/);
  await expect(f.tags).toHaveValue('gpu');
  await expect(page.getByRole('link', { name: 'Ollama', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'vLLM', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Redis', exact: true })).toHaveCount(0);
  // The card's own link still opens the template.
  await page.getByRole('link', { name: 'Ollama', exact: true }).click();
  await expect(page).toHaveURL(/\/templates\/ollama$/);
  await page.getByRole('list', { name: 'Tags' }).getByRole('link', { name: 'Tag llm' }).click();
  await expect(page).toHaveURL(/\/\?tags=llm$/);
  await expect(page.getByRole('link', { name: 'Open WebUI', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'PostgreSQL', exact: true })).toHaveCount(0);
});

test('a page past the end says so and links to the last page, keeping the filters', async ({ page }) => {
  await page.goto('/?page=99');
  await expect(page.getByText('Page 99 is past the end — go to page 2')).toBeVisible();
  await expect(page.getByText('The catalog is empty')).toHaveCount(0);
  await checkPage(page, 'catalog past the end');
  await page.getByRole('link', { name: 'go to page 2' }).click();
  await expect(page).toHaveURL(/\/\?page=2$/);
  await expect(page.getByText('Page 2 of 2')).toBeVisible();

  await page.goto('/?category=databases&page=5');
  await expect(page.getByText('Page 5 is past the end — go to page 1')).toBeVisible();
  await page.getByRole('link', { name: 'go to page 1' }).click();
  await expect(page).toHaveURL(/\/\?category=databases$/);
  await expect(page.getByRole('link', { name: 'MariaDB', exact: true })).toBeVisible();
});

test('template page: breadcrumb, copy buttons and the references Core needs', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await page.goto('/templates/postgresql');
  const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
  await expect(crumbs.getByRole('link')).toHaveText(['Catalog', 'Databases']);
  await expect(crumbs.locator('[aria-current="page"]')).toHaveText('PostgreSQL');

  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
  const copyImage = page.getByRole('button', { name: 'Copy image reference' });
  await expect(copyImage).toHaveText('Copy');
  await copyImage.click();
  await expect(copyImage).toHaveText('Copied');
  await expect(page.getByRole('status').filter({ hasText: 'Image reference copied' })).toBeAttached();
  expect(await clipboard()).toBe('postgres:17.2');

  await page.getByRole('button', { name: 'Copy slug' }).click();
  await expect(page.getByRole('button', { name: 'Copy slug' })).toHaveText('Copied');
  expect(await clipboard()).toBe('postgresql');

  await page.getByRole('button', { name: 'Copy Hub API call' }).click();
  const hubCall = await clipboard();
  expect(hubCall).toContain('Authorization: Bearer $HUB_INSTANCE_KEY');
  expect(hubCall).toContain(`${baseURL}/api/v1/catalog/templates/postgresql`);

  await page.getByRole('button', { name: 'Copy Core commands' }).click();
  const core = await clipboard();
  expect(core).toContain('$C/catalog/sync');
  const body = JSON.parse(core.match(/-d '([^']+)'/)![1]!);
  // POSTGRES_PASSWORD is required without a default, and a credential: the command binds it to a Core secret.
  expect(body).toEqual({
    name: 'postgresql',
    template_slug: 'postgresql',
    env: { POSTGRES_PASSWORD: { secret: 'postgresql.postgres_password' } },
  });
  await checkPage(page, 'template page');

  // What the copied Hub call names answers with this template.
  const res = await page.request.get(`/api/v1/catalog/templates/postgresql`);
  expect(res.status()).toBe(200);
  expect((await res.json()).slug).toBe('postgresql');

  await crumbs.getByRole('link', { name: 'Databases' }).click();
  await expect(page).toHaveURL(/\/\?category=databases$/);
  await expect(filters(page).category).toHaveValue('databases');
});

test('at 390 px the catalog and the template page do not scroll sideways', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  for (const path of [
    '/',
    '/?category=ai-ml&tags=llm,gpu&featured=true',
    '/?search=a-very-long-search-term-without-any-spaces-in-it-at-all',
    '/?page=99',
    '/templates/stable-diffusion-webui',
    '/templates/minio',
  ]) {
    await page.goto(path);
    await expect(page.locator('main h1').first()).toBeVisible();
    expect(await overflow(), `${path} scrolls sideways at 390 px`).toBeLessThanOrEqual(1);
  }
  // Filtering at phone width: the chips wrap, the controls stay usable.
  await page.goto('/');
  await filters(page).chip('Developer Tools').click();
  await expect(page).toHaveURL(/category=dev-tools/);
  expect(await overflow()).toBeLessThanOrEqual(1);
});

test('a missing template offers a catalog search', async ({ page }) => {
  await page.goto('/templates/no-such-template');
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
  await page.getByRole('search', { name: 'Search the catalog' }).getByLabel('Search the catalog').fill('grafana');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/\/\?search=grafana$/);
  await expect(page.getByRole('link', { name: 'Grafana', exact: true })).toBeVisible();
  await checkPage(page, 'catalog after a not-found search');
});
