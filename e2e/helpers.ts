/** Shared steps of the journeys: signing in through the real OIDC provider, accessibility checks, screenshots. */
import AxeBuilder from '@axe-core/playwright';
import { expect, type BrowserContext, type Page } from '@playwright/test';
import { expectChartsNamed } from '@shared/charts/e2e';

export { expectChartsNamed };
import fs from 'node:fs';
import path from 'node:path';

/**
 * README screenshots are taken only when E2E_SCREENSHOTS is set (to `docs/screenshots`, or to the folder it names):
 * 11 calls of 2 or 4 full-page shots (2.6 s for four on a 2-core machine), and every run rewrote tracked files.
 * Regenerate with `E2E_SCREENSHOTS=1 npm run test:e2e -- journeys fleet-overview`.
 */
const SHOTS = process.env.E2E_SCREENSHOTS;
export const SCREENSHOT_DIR =
  SHOTS && SHOTS !== '1' && SHOTS !== 'true'
    ? path.resolve(SHOTS)
    : path.resolve(import.meta.dirname, '../docs/screenshots');

/** Signs in through the development provider's login form; ends back on the Hub at `expectPath`. */
export async function signIn(
  page: Page,
  email: string,
  name: string,
  opts: { from?: string; expectPath?: string | RegExp } = {},
) {
  await page.goto(opts.from ?? '/signin');
  await page.getByRole('button', { name: /^Sign in with/ }).click();
  await page.waitForURL(/\/interaction\//);
  await expect(page.getByRole('heading', { name: 'Development sign-in' })).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name (optional)').fill(name);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(
    (url) =>
      url.port === new URL(page.url()).port &&
      !url.pathname.startsWith('/interaction') &&
      !url.pathname.startsWith('/auth'),
  );
  if (opts.expectPath) await expect(page).toHaveURL(opts.expectPath);
}

/** A run's kept sessions (the output folder, emptied at the start of every run). */
const AUTH_DIR = path.resolve(import.meta.dirname, '../test-results/e2e/.auth');

/**
 * `email` signed in on `page`'s context, ending on /account like signIn: through the provider's form the first time in
 * a run (~5 s), then with that sign-in's cookies again. For files whose subject is not signing in; a kept session
 * that no longer works (signed out since) is replaced by a new sign-in.
 */
export async function signedIn(page: Page, email: string, name: string) {
  const file = path.join(AUTH_DIR, `${email}.json`);
  if (fs.existsSync(file)) {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as { cookies: Parameters<BrowserContext['addCookies']>[0] };
    await page.context().addCookies(state.cookies);
    await page.goto('/account');
    if (new URL(page.url()).pathname === '/account') return;
    await page.context().clearCookies();
  }
  await signIn(page, email, name, { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  fs.mkdirSync(AUTH_DIR, { recursive: true });
  await page.context().storageState({ path: file });
}

/**
 * Waits until React has hydrated the element `selector` finds (its handlers are attached). What is typed before that
 * lands in the DOM only; the page adopts it at hydration, but Enter pressed that early is the browser's own submit.
 */
export async function waitForHydration(page: Page, selector: string) {
  await page.waitForFunction((s) => {
    const element = document.querySelector(s);
    return element !== null && Object.keys(element).some((key) => key.startsWith('__reactProps$'));
  }, selector);
}

const SCRIPTS = '**/_next/static/**/*.js';

/**
 * Opens `url` with the page's scripts held back, as on a slow connection: the server-rendered HTML is there but React
 * has not hydrated it. `release()` lets the scripts load and waits until `selector`'s element is hydrated.
 */
export async function gotoBeforeHydration(page: Page, url: string) {
  const held: Array<() => Promise<void>> = [];
  let released = false;
  await page.route(SCRIPTS, (route) => (released ? route.continue() : void held.push(() => route.continue())));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return {
    async release(selector: string) {
      expect(held.length, 'scripts were held back').toBeGreaterThan(0);
      released = true;
      await Promise.all(held.map((go) => go()));
      await page.unroute(SCRIPTS);
      await waitForHydration(page, selector);
    },
  };
}

/** axe-core on the current page (WCAG 2.1 A/AA rules): no serious or critical violations. */
export async function expectAccessible(page: Page, label: string) {
  // Toasts that are on their way out of sight are left out: one being dismissed fades out, and one that a newer
  // toast stacks behind has its content faded to nothing (sonner: collapsed, not the front one) until the stack is
  // hovered. Mid-fade their text is as pale as the animation makes it (CI: 1.39:1 and 2.24:1); the front toast is
  // checked like everything else.
  // A toast that has just appeared is still fading in (CI: 4.27:1 mid-fade): let its transition end first.
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every(
          (a) =>
            a.playState !== 'running' ||
            !((a.effect as KeyframeEffect | null)?.target as Element | null)?.closest?.('[data-sonner-toast]'),
        ),
    undefined,
    { timeout: 5_000 },
  );
  // After a client-side navigation (router.push) Next.js streams the new page's metadata after its content: the
  // document has no <title> for a moment (CI: ~300 ms after the list showed). The settled page is what is checked.
  await page.waitForFunction(() => document.title.trim() !== '', undefined, { timeout: 5_000 }).catch(() => {});
  const builder = new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .exclude('[data-sonner-toast][data-removed="true"]')
    .exclude('[data-sonner-toast][data-expanded="false"][data-front="false"]')
    // Only violations are read: passes and inapplicable rules are not collected node by node.
    .options({ resultTypes: ['violations'] });
  // Without cross-origin frames, axe runs in the page itself (the same rules on the same DOM, same-origin frames
  // included): the default mode opens a new page for every scan only to merge the frames' results.
  const origin = new URL(page.url()).origin;
  if (page.frames().every((f) => f === page.mainFrame() || new URL(f.url()).origin === origin)) builder.setLegacyMode();
  const results = await builder.analyze();
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

/** Waits until the page shows its data: no requests in flight, no loading placeholders, fonts and images loaded. */
export async function waitForPainted(page: Page) {
  await page.waitForLoadState('networkidle').catch(() => {});
  await expect(page.locator('.animate-pulse, [aria-busy="true"]'), 'loading placeholders still shown').toHaveCount(0, {
    timeout: 15_000,
  });
  await page.evaluate(async () => {
    await document.fonts.ready;
    await Promise.all(
      [...document.images]
        .filter((i) => !i.complete)
        .map(
          (i) =>
            new Promise((r) => {
              i.onload = i.onerror = r;
            }),
        ),
    );
    // Two frames: the last state change is painted.
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
}

/**
 * Full-page screenshots for the README once the data is painted: `name.png` (light) and `name-dark.png`
 * (the system's dark setting), at the desktop width and, with `phone`, at 390px too (`name-phone.png`,
 * `name-phone-dark.png`). Without E2E_SCREENSHOTS only the wait for the painted data (and its check) remains.
 */
export async function screenshot(page: Page, name: string, opts: { phone?: boolean } = {}) {
  if (!SHOTS) return waitForPainted(page);
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const shoot = async (file: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await waitForPainted(page);
      await page.screenshot({
        path: path.join(SCREENSHOT_DIR, `${file}${scheme === 'dark' ? '-dark' : ''}.png`),
        fullPage: true,
        animations: 'disabled',
      });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };
  await shoot(name);
  if (opts.phone) {
    const size = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    await shoot(`${name}-phone`);
    if (size) await page.setViewportSize(size);
  }
}

/** Visits a page, checks accessibility (desktop and phone widths) and that nothing overflows sideways on a phone. */
export async function checkPage(page: Page, label: string) {
  await expectAccessible(page, label);
  await expectChartsNamed(page);
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  // Polled: layout and toasts settle a moment after the resize.
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), {
      message: `${label} scrolls sideways at phone width`,
      timeout: 5000,
    })
    .toBeLessThanOrEqual(1);
  await expectAccessible(page, `${label} (phone width)`);
  if (size) await page.setViewportSize(size);
}

export function uniqueSuffix() {
  return Math.random().toString(36).slice(2, 8);
}
