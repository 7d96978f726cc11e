import { defineConfig } from 'vitest/config';

/**
 * Core's suite. Embedded PGlite (in memory) by default, needing nothing but Node; with
 * CORE_TEST_DATABASE_URL set (a PostgreSQL server URL), every test file gets a fresh database on that
 * server instead, and the tests that need a server of their own (tests/postgres: a database outage) run too.
 */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['tests/**/*.test.ts'],
    exclude: process.env.CORE_TEST_DATABASE_URL ? [] : ['tests/postgres/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
