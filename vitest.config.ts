import { defineConfig } from 'vitest/config';
import { TEST_NODE_FLAGS } from './tests/compiled';
import ProcessesFirst from './tests/sequencer';

export default defineConfig({
  resolve: { alias: { '@': import.meta.dirname } },
  test: {
    include: ['server/**/*.test.ts', 'tests/**/*.test.ts', 'packages/**/*.test.ts'],
    // Tests that need a PostgreSQL server or PowerDNS: `npm run test:integration`.
    exclude: ['tests/integration/**', 'node_modules/**'],
    // Once per run: the compiled processes and one migrated database every file copies (tests/global-setup.ts).
    globalSetup: ['tests/global-setup.ts'],
    setupFiles: ['tests/setup.ts'],
    // next-auth imports "next/server" without an extension, which Node's ESM resolver refuses: let Vite resolve it.
    server: { deps: { inline: ['next-auth'] } },
    // The ten slowest files after the run (CI's log shows where the time goes).
    reporters: ['default', './tests/slowest-files.ts'],
    // Files that start real processes first (the longest ones; tests/sequencer.ts).
    sequence: { sequencer: ProcessesFirst },
    pool: 'forks',
    // Files share their worker's loaded modules (each still gets its own database: tests/setup.ts, which also
    // restores the environment a file changed; in memory, the worker's database put back to the snapshot's state,
    // @shared/pglite-memory). Loading the server's modules once per worker instead of once per file saved ~18 s of
    // CPU per run; state kept in modules is tied to the database it came from (server/db/client.ts databaseOpenings).
    isolate: false,
    // Every file opens PGlite: see TEST_NODE_FLAGS.
    execArgv: TEST_NODE_FLAGS,
    // Each file opens its own database; two at a time suits a 2-core machine.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
