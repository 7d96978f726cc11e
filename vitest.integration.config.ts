import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/** Tests that need more than Node: a PostgreSQL server (multi-process) and PowerDNS. See README. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['tests/integration/**/*.test.ts'], exclude: ['node_modules/**'] },
});
