/** The end-to-end check of both frontends' charts (Playwright; e2e/ and core/e2e/ import it). */
import { expect, type Page } from '@playwright/test';

/**
 * Every chart on the page (a Recharts picture, @shared/charts) is one image whose name is not empty and carries
 * its total as its table of numbers counts it ("…: 1,204 in total"), or for a level such as active instances its
 * highest day ("…: at most 3"). At least `atLeast` of them.
 */
export async function expectChartsNamed(page: Page, atLeast = 0) {
  const charts = await page.locator('[role="img"]:has(.recharts-responsive-container)').evaluateAll((pictures) =>
    pictures.map((picture) => {
      // The table of numbers is in the disclosure right after the picture (in the DOM even while closed).
      const body = picture.nextElementSibling?.querySelector('tbody');
      const rows = [...(body?.rows ?? [])].map((row) =>
        [...row.cells].filter((c) => c.tagName === 'TD').reduce((n, c) => n + Number(c.textContent), 0),
      );
      return {
        name: picture.getAttribute('aria-label') ?? '',
        total: rows.reduce((a, b) => a + b, 0),
        max: Math.max(0, ...rows),
      };
    }),
  );
  expect(charts.length, 'charts on the page').toBeGreaterThanOrEqual(atLeast);
  const count = new Intl.NumberFormat('en-US');
  for (const chart of charts) {
    expect(chart.name.trim(), 'a chart without an accessible name').not.toBe('');
    expect(chart.name).toMatch(
      new RegExp(`: (${count.format(chart.total)} in total|at most ${count.format(chart.max)} )`),
    );
  }
}
