/**
 * Core's end-to-end tests in a real browser: Debian's Chromium (/usr/bin/chromium), Core as a real process
 * (`npm run core -- serve` on a free port, embedded database in a temporary directory), a real OpenID provider
 * (oidc-provider on 127.0.0.1), all started by e2e/global-setup.ts.
 *
 *   npm run test:core:e2e            (from the repo root)
 * Environment: CORE_E2E_CHROMIUM (/usr/bin/chromium).
 */
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  // One Core process shared by the journeys: one worker.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  outputDir: '../test-results/core-e2e',
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CORE_E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    },
  },
});
