import { defineConfig } from 'vitest/config';
import { TEST_NODE_FLAGS } from '../tests/compiled';
import ProcessesFirst from '../tests/sequencer';

const ENGINE = !!process.env.CORE_TEST_ENGINE;

/**
 * Core's suite. Embedded PGlite (in memory) by default, needing nothing but Node; with
 * CORE_TEST_DATABASE_URL set (a PostgreSQL server URL), every test file gets a fresh database on that
 * server instead, and the tests that need a server of their own (tests/postgres: a database outage) run too.
 * With CORE_TEST_ENGINE set (`podman`: the tests start Debian's podman service; or a DOCKER_HOST URL), the tests
 * on a real container engine (tests/engine, see its fixture.ts) run too.
 */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['tests/**/*.test.ts'],
    exclude: [
      ...(process.env.CORE_TEST_DATABASE_URL ? [] : ['tests/postgres/**']),
      ...(ENGINE ? [] : ['tests/engine/**']),
    ],
    // Once per run: Core's compiled CLI for the tests that start the real process.
    // With an engine: its service and test images, once per run (tests/engine/global-setup.ts).
    globalSetup: ['tests/global-setup.ts', ...(ENGINE ? ['tests/engine/global-setup.ts'] : [])],
    // The ten slowest files after the run (CI's log shows where the time goes).
    reporters: ['default', '../tests/slowest-files.ts'],
    // Files that start real processes first (the longest ones; tests/sequencer.ts).
    sequence: { sequencer: ProcessesFirst },
    pool: 'forks',
    // Files share their worker's loaded modules (each opens its own Core and database): ~18 s of CPU less per run.
    isolate: false,
    // Every file opens PGlite: see TEST_NODE_FLAGS.
    execArgv: TEST_NODE_FLAGS,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
