import { defineConfig } from 'vitest/config';

/** The shared workspace packages' own tests (`npm run test:packages`); each package also runs alone (`npm test -w`). */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['*/test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
