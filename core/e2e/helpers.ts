/** Shared steps: the Core URL as base URL, signing in, accessibility and phone-width checks. */
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';
import { expectChartsNamed } from '@shared/charts/e2e';

export { expectChartsNamed };
import { E2E } from './env';

/** Every test runs against the Core started by the global setup (its port is chosen at run time). */
export const test = base.extend({
  // eslint-disable-next-line no-empty-pattern -- Playwright's way to declare a fixture without dependencies
  baseURL: async ({}, use) => use(E2E.url),
});
export { expect };

type Credentials = { username: string; password: string };

/** Fills and sends the sign-in form of the page the browser is on. */
export async function submitPassword(page: Page, user: Credentials) {
  await page.getByLabel('Email or username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

export async function signInWithPassword(page: Page, user: Credentials) {
  await page.goto('/');
  await expect(page).toHaveURL(/\/login/);
  await submitPassword(page, user);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
}

export const REFUSED_TOKEN = 'expired.or.garbage';

/** Replaces the stored access token (an OIDC session's) with one Core refuses, as it refuses an expired one. */
export async function spoilAccessToken(page: Page) {
  await page.evaluate((token) => {
    const s = JSON.parse(sessionStorage.getItem('core.session')!);
    sessionStorage.setItem('core.session', JSON.stringify({ ...s, access_token: token }));
  }, REFUSED_TOKEN);
}

/**
 * The signed-in person's access token, for calling the API as them: an OIDC session's from sessionStorage; a local
 * session's (memory only) from Core with the page's HttpOnly cookie, one tab at a time as the app refreshes.
 */
export async function storedSession(
  page: Page,
): Promise<{ method: string; access_token: string; refresh_token: string | null }> {
  const raw = await page.evaluate(() => sessionStorage.getItem('core.session'));
  if (raw) return JSON.parse(raw);
  const local = await page.evaluate(() =>
    navigator.locks.request('core.session.refresh', async () => {
      const res = await fetch('/api/v1/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-core-session': 'cookie' },
        body: '{}',
      });
      return res.ok ? ((await res.json()) as { access_token: string }) : null;
    }),
  );
  expect(local, 'a session in this browser').toBeTruthy();
  return { method: 'local', access_token: local!.access_token, refresh_token: null };
}

/** axe-core (WCAG 2.1 A/AA): no serious or critical violations. */
export async function expectAccessible(page: Page, label: string) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join('\n  ')}`,
    )
    .join('\n');
  expect(bad, `accessibility violations on ${label}:\n${report}`).toEqual([]);
}

/** Accessible at 1280 px and at 390 px, where nothing may scroll sideways. */
export async function checkPage(page: Page, label: string) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await expectAccessible(page, label);
  await expectChartsNamed(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), {
      message: `${label} scrolls sideways at 390 px`,
    })
    .toBeLessThanOrEqual(0);
  await expectAccessible(page, `${label} at 390 px`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Opens a page through the main navigation and waits for its heading. */
export async function openPage(page: Page, link: string, heading = link) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
}

/** The provider's own sign-in (oidc-provider's development interactions: login form, then consent when asked). */
export async function providerSignIn(page: Page, login: string) {
  await page.waitForURL((url) => url.href.startsWith(E2E.oidcIssuer));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any-password');
  await page.getByRole('button', { name: /sign-?in/i }).click();
  const consent = page.getByRole('button', { name: /continue/i });
  await Promise.race([consent.waitFor(), page.waitForURL((url) => url.href.startsWith(E2E.url))]);
  if (await consent.isVisible()) await consent.click();
}

/** With CORE_E2E_SCREENSHOTS=<dir>: full-page photographs at 1280 and 390 px, light and dark (for docs/screenshots). */
const shots = process.env.CORE_E2E_SCREENSHOTS;

export async function photograph(page: Page, name: string) {
  if (!shots) return;
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height, suffix] of [
      [1280, 900, ''],
      [390, 844, '-390'],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(300); // the charts re-measure their container
      await page.screenshot({
        path: path.join(shots, `${name}${suffix}${scheme === 'dark' ? '-dark' : ''}.png`),
        fullPage: true,
      });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}
