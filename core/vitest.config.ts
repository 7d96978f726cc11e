import { defineConfig } from 'vitest/config';

/**
 * Core's suite. Embedded PGlite (in memory) by default; with CORE_TEST_DATABASE_URL set (a PostgreSQL
 * server URL), every test file gets a fresh database on that server instead.
 */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
