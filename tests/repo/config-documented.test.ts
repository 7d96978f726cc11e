/**
 * Every environment variable the Hub reads (through server/config.ts's readEnv, its typed getters, or a module's own
 * table such as the rate limits' and quotas') has a row in a settings table: docs/hub.md (Configuration, Rate
 * limits) or, for the settings of a scaled-out Hub, docs/operating-at-scale.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Read by Next.js or NextAuth themselves, or set by `npm start` or the test setup for the process it starts. */
const NOT_SETTINGS = new Set([
  'NODE_ENV',
  'AUTH_URL',
  'NEXTAUTH_SECRET',
  'HUB_DEV_OIDC_PROVIDER',
  'HUB_TEST_PGLITE_SNAPSHOT',
]);

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
    for (const m of text.matchAll(/\b(?:readEnv|env|line|intEnv|countEnv)\('([A-Z][A-Z0-9_]+)'/g)) read.add(m[1]!);
    // Tables of settings: { env: 'HUB_…' } (quotas) and the rate limits' ENV record.
    for (const m of text.matchAll(/\benv: '([A-Z][A-Z0-9_]+)'|: '(HUB_RATE_LIMIT_[A-Z_]+)'/g))
      read.add((m[1] ?? m[2])!);
  }
  return read;
}

it('documents every variable the Hub reads in a settings table', () => {
  const read = variablesRead();
  expect(read.size).toBeGreaterThan(50); // sanity: the scan sees the settings
  expect(read).toContain('HUB_TRUSTED_PROXIES');
  expect(read).toContain('OIDC_ISSUER');
  const table = ['docs/hub.md', 'docs/operating-at-scale.md']
    .flatMap((doc) => fs.readFileSync(path.join(ROOT, doc), 'utf8').split('\n'))
    .filter((line) => line.startsWith('|'))
    .join('\n');
  expect([...read].filter((name) => !NOT_SETTINGS.has(name) && !table.includes(`\`${name}\``)).sort()).toEqual([]);
});
