import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': import.meta.dirname } },
  test: {
    include: ['server/**/*.test.ts', 'tests/**/*.test.ts'],
    // Tests that need a PostgreSQL server or PowerDNS: `npm run test:integration`.
    exclude: ['tests/integration/**', 'node_modules/**'],
    setupFiles: ['tests/setup.ts'],
    // next-auth imports "next/server" without an extension, which Node's ESM resolver refuses: let Vite resolve it.
    server: { deps: { inline: ['next-auth'] } },
    pool: 'forks',
    // Each file opens its own database; two at a time suits a 2-core machine.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
