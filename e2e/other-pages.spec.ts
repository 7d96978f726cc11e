/**
 * The dashboard pages outside the journeys (personal access tokens, support) get the same checks:
 * axe-core (no serious or critical violations) at desktop and phone width, no sideways scrolling.
 * Runs after journeys.spec.ts (one worker, files in order) with the same people: E2E_RUN names them.
 */
import { expect, test, type Page } from '@playwright/test';
import { checkPage, signIn } from './helpers';

const run = process.env.E2E_RUN;

async function visit(page: Page, path: string, who: string) {
  await page.goto(path);
  await page.waitForLoadState('networkidle');
  await expect(page.locator('main h1').first()).toBeVisible();
  await checkPage(page, `${path} (${who})`);
}

test('personal access token and support pages, as an organization admin', async ({ page }) => {
  await signIn(page, `owner-${run}@example.test`, 'Olga Owner', { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  for (const path of ['/account/tokens', '/support', '/support/instances', '/support/addon-events']) await visit(page, path, 'organization admin');
});

test('support pages, as a platform admin', async ({ page }) => {
  await signIn(page, `admin-${run}@example.test`, 'Ada Admin', { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  for (const path of ['/support', '/support/instances', '/support/addon-events']) await visit(page, path, 'platform admin');
});
