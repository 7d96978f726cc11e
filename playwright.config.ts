/**
 * End-to-end tests in a real browser: Debian's Chromium (/usr/bin/chromium, no browser download),
 * the production build (next build + the production server of npm start), a fresh PostgreSQL database and the development
 * OpenID provider (oidc-provider on 127.0.0.1), all started by e2e/global-setup.ts.
 *
 *   npm run test:e2e
 * Environment: E2E_PORT (3210; the OIDC provider takes E2E_PORT+1), E2E_DATABASE_SERVER
 * (postgres://postgres@127.0.0.1:5432/postgres), E2E_CHROMIUM (/usr/bin/chromium), E2E_BUILD=always|never.
 */
import { defineConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT ?? 3210);

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  // The journeys build on each other and share one server: one worker, in order.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  outputDir: 'test-results/e2e',
  reporter: [['list'], ['./e2e/summary-reporter.ts']],
  use: {
    baseURL: `http://localhost:${port}`,
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium',
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
