/**
 * No process.env read outside the two config modules and the CLIs' entry points (issue 35): each service parses its
 * environment once, at start, into one typed object (server/config.ts, core/src/config.ts), and everything else
 * receives it. Allowed besides those: the places listed below, each with its reason. Whatever else reads the
 * environment fails this test, with the file named.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.next', 'test-results', 'playwright-report', '.hub-data']);

/** Files that may read the environment, and why. */
const ALLOWED_FILES: Record<string, string> = {
  'server/config.ts': "the Hub's configuration",
  'core/src/config.ts': "Core's configuration",
  'server/cli.ts': "the Hub's CLI entry point",
  'core/src/cli.ts': "Core's CLI entry point",
  'core/client/machine-token-audit.ts': 'an automation client run from the command line (CORE_URL, CORE_USERNAME, …)',
  'instrumentation.ts': "Next.js' own hook: NEXT_RUNTIME and NEXT_PHASE are Next's, not settings",
};

/** Folders whose files may read it: they start processes, or are started by hand, never serve. */
const ALLOWED_FOLDERS: Record<string, string> = {
  'tests/': 'tests and their fixtures',
  'e2e/': 'end-to-end tests',
  'core/tests/': "Core's tests",
  'core/e2e/': "Core's end-to-end tests",
  'bench/': 'the benchmark (its own entry point)',
  'core/bench/': "Core's benchmark",
  'scripts/': 'command-line scripts (npm start, builds)',
};

/** Configuration files of tools (vitest, playwright, vite, drizzle-kit, next, eslint) are read by those tools. */
const TOOL_CONFIG = /(^|\/)[\w.-]+\.config\.(ts|mts|js|mjs|cjs)$/;

/** The one write allowed outside the config modules: NextAuth reads AUTH_URL from process.env itself. */
const ALLOWED_WRITES: Record<string, RegExp> = {
  'server/auth/nextauth.ts': /process\.env\.AUTH_URL = /g,
};

const ENV_ACCESS =
  /\bprocess\s*(?:\?\.|\.)\s*env\b|\bprocess\s*\[\s*['"`]env['"`]\s*\]|\{[^{}]*\benv\b[^{}]*\}\s*=\s*process\b/;

function sourceFiles(rel: string): string[] {
  return fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory())
      return SKIPPED_FOLDERS.has(entry.name) || entry.name.startsWith('.') ? [] : sourceFiles(child);
    return EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !/\.d\.m?ts$/.test(entry.name) ? [child] : [];
  });
}

/** The code without its comments (block comments, whole-line and trailing ` // …` ones): a comment may name process.env. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/\s\/\/ .*$/gm, '');
}

function allowed(file: string): boolean {
  return (
    file in ALLOWED_FILES ||
    Object.keys(ALLOWED_FOLDERS).some((folder) => file.startsWith(folder)) ||
    TOOL_CONFIG.test(file)
  );
}

/** Files (of `sources`: path → text) that read the environment without being allowed to. */
function envReaders(sources: Map<string, string>): string[] {
  return [...sources]
    .filter(([file]) => !allowed(file))
    .filter(([file, text]) => {
      const write = ALLOWED_WRITES[file];
      return ENV_ACCESS.test(write ? code(text).replace(write, '') : code(text));
    })
    .map(([file]) => file)
    .sort();
}

const sources = new Map(sourceFiles('').map((file) => [file, fs.readFileSync(path.join(ROOT, file), 'utf8')]));

describe('environment reads', () => {
  it('reads the real tree (sanity: the config modules are there and read the environment)', () => {
    expect(sources.size).toBeGreaterThan(500);
    expect(ENV_ACCESS.test(code(sources.get('server/config.ts')!))).toBe(true);
    expect(ENV_ACCESS.test(code(sources.get('core/src/config.ts')!))).toBe(true);
    expect(sources.has('server/api/rateLimit.ts')).toBe(true);
  });

  it('finds no process.env read outside the config modules and the allowed entry points', () => {
    expect(envReaders(sources)).toEqual([]);
  });

  it('lists only allowed files and folders that exist', () => {
    for (const file of [...Object.keys(ALLOWED_FILES), ...Object.keys(ALLOWED_WRITES)])
      expect(sources.has(file), file).toBe(true);
    for (const folder of Object.keys(ALLOWED_FOLDERS))
      expect(fs.existsSync(path.join(ROOT, folder)), folder).toBe(true);
  });

  it('fails on a read outside them (planted ones), not on a comment naming process.env', () => {
    const planted = new Map(sources);
    const add = (file: string, line: string) => planted.set(file, `${sources.get(file) ?? ''}\n${line}\n`);
    add('server/api/rateLimit.ts', "const limit = Number(process.env.HUB_RATE_LIMIT_ANONYMOUS ?? '120');");
    add('server/http/mcp/proxy.ts', 'const { env } = process;');
    add('core/src/db/client.ts', "const snapshot = process['env'].CORE_TEST_PGLITE_SNAPSHOT;");
    add('server/auth/nextauth.ts', 'const hub = process.env.HUB_URL;'); // the allowed write does not allow a read
    add('packages/ops/src/index.ts', 'export const level = process?.env.LOG_LEVEL;');
    add('server/domain/users.ts', '// not from process.env: the config object');
    add('server/log.ts', '/** process.env is read in server/config.ts only */');
    expect(envReaders(planted)).toEqual([
      'core/src/db/client.ts',
      'packages/ops/src/index.ts',
      'server/api/rateLimit.ts',
      'server/auth/nextauth.ts',
      'server/http/mcp/proxy.ts',
    ]);
  });
});
