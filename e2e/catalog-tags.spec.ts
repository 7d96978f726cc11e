/**
 * Tag filters are case-insensitive: "GPU" finds what "gpu" finds (the server side of issue 15; this file passes
 * once that change is merged with the catalog UI).
 */
import { expect, test } from '@playwright/test';
import { waitForHydration } from './helpers';

test('tag search is case-insensitive, from the URL and from the tags box', async ({ page }) => {
  await page.goto('/?tags=gpu');
  const lower = await page.getByText(/^\d+ templates?$/).textContent();
  await page.goto('/?tags=GPU');
  await expect(page.getByRole('link', { name: 'Ollama', exact: true })).toBeVisible();
  await expect(page.getByText(/^\d+ templates?$/)).toHaveText(lower!);

  await page.goto('/');
  // Typed letter by letter: each keystroke must reach the handlers, so wait until they are attached.
  await waitForHydration(page, 'form[role="search"]');
  await page
    .getByRole('search', { name: 'Catalog filters' })
    .getByLabel('Tags')
    .pressSequentially('Gpu', { delay: 30 });
  await page.waitForURL((url) => url.searchParams.get('tags') === 'Gpu');
  await expect(page.getByRole('link', { name: 'vLLM', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Redis', exact: true })).toHaveCount(0);
});
