/**
 * Every environment variable the Hub reads (server/config.ts's loadConfig, through its one reader; no other module
 * reads the environment: tests/repo/env-reads.test.ts) has a row in a settings table of docs/hub.md (Configuration,
 * Rate limits, Quotas): the one place that documents every setting.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Read by Next.js or NextAuth themselves, or set by `npm start` or the test setup for the process it starts. */
const NOT_SETTINGS = new Set(['NODE_ENV', 'AUTH_URL', 'HUB_DEV_OIDC_PROVIDER', 'HUB_TEST_PGLITE_SNAPSHOT']);

function files(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    return entry.isDirectory() ? files(rel) : /\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

function variablesRead(): Set<string> {
  const read = new Set<string>();
  for (const file of files('server')) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    // loadConfig's readers: env('X'), line('X'), intEnv('X', …), countEnv, integer, oneOf; the quotas' { env: 'X' }.
    for (const m of text.matchAll(
      /\b(?:env|line|intEnv|countEnv|integer|oneOf)\('([A-Z][A-Z0-9_]+)'|\benv: '([A-Z][A-Z0-9_]+)'/g,
    ))
      read.add((m[1] ?? m[2])!);
  }
  return read;
}

it('documents every variable the Hub reads in a settings table', () => {
  const read = variablesRead();
  expect(read.size).toBeGreaterThan(50); // sanity: the scan sees the settings
  expect(read).toContain('HUB_TRUSTED_PROXIES');
  expect(read).toContain('OIDC_ISSUER');
  expect(read).toContain('HUB_RATE_LIMIT_SYNC_MS');
  expect(read).toContain('HUB_QUOTA_TICKETS');
  const table = fs
    .readFileSync(path.join(ROOT, 'docs/hub.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .join('\n');
  expect([...read].filter((name) => !NOT_SETTINGS.has(name) && !table.includes(`\`${name}\``)).sort()).toEqual([]);
});
