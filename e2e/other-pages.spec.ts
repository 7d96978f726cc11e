/**
 * The dashboard pages outside the journeys (personal access tokens, support) get the same checks:
 * axe-core (no serious or critical violations) at desktop and phone width, no sideways scrolling.
 * Runs after journeys.spec.ts (one worker, files in order) with the same people: E2E_RUN names them.
 */
import { expect, test, type Page } from '@playwright/test';
import { checkPage, signedIn, signIn } from './helpers';

const run = process.env.E2E_RUN;

async function visit(page: Page, path: string, who: string) {
  await page.goto(path);
  await page.waitForLoadState('networkidle');
  await expect(page.locator('main h1').first()).toBeVisible();
  await checkPage(page, `${path} (${who})`);
}

test('personal access token and support pages, as an organization admin', async ({ page }) => {
  await signIn(page, `owner-${run}@example.test`, 'Olga Owner', {
    from: '/signin?callbackUrl=/account',
    expectPath: /\/account$/,
  });
  for (const path of ['/account/tokens', '/support', '/support/instances', '/support/addon-events'])
    await visit(page, path, 'organization admin');
});

test('support pages, as a platform admin', async ({ page }) => {
  await signedIn(page, `admin-${run}@example.test`, 'Ada Admin');
  for (const path of ['/support', '/support/instances', '/support/addon-events'])
    await visit(page, path, 'platform admin');
});

test('the API reference renders the Hub’s own OpenAPI document from files the Hub serves, under its page policy', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  const answer = await page.goto('/docs/api');
  expect(answer?.status()).toBe(200);
  expect(answer?.headers()['content-security-policy']).toContain("'nonce-");
  // Swagger UI lists the operations of the generated document (one of each surface; paths under its /api/v1 server).
  await expect(page.getByRole('heading', { name: /^Hub API/, level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: '/catalog/templates', exact: true }).first()).toBeVisible();
  await expect(page.getByRole('link', { name: '/admin/templates', exact: true }).first()).toBeVisible();
  // Nothing from another origin (no CDN), and nothing the page policy refused.
  const origin = new URL(page.url()).origin;
  expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'))).toEqual([]);
  expect(errors.filter((text) => /Content Security Policy|Refused to/i.test(text))).toEqual([]);
});
