/**
 * The layering of the whole repository, checked on the sources: one table (AREAS) of which area may import
 * which, and no import cycle anywhere. Type-only imports count: a cycle or an upward arrow through types is
 * still one for the reader. docs/architecture.md draws the same house.
 *
 * Tests (tests/, e2e/, core/tests/, core/e2e/) are not checked as importers: a test may reach any file. They
 * are targets, though: scripts and benchmarks never import them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.mjs'];

/** The importers checked: every service, package, script and benchmark source. */
const SOURCES = [
  'server',
  'app',
  'proxy.ts',
  'instrumentation.ts',
  'core/src',
  'core/web/src',
  'core/shared',
  'core/bench',
  'packages',
  'scripts',
  'bench',
];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'results']);

/**
 * Every file's area, the first pattern that matches, and the areas it may import (besides its own). A file in
 * no area is a test. `base` is each service's configuration, logger and metrics, which every layer may use.
 */
const AREAS: { area: string; files: RegExp; imports: string[] }[] = [
  // The Hub: db → domain → auth (who is calling) → api → adapters (the edge server with /mcp, the pages).
  { area: 'hub/base', files: /^server\/(config|log|metrics|batched)\.ts$/, imports: [] },
  { area: 'hub/db', files: /^server\/db\//, imports: ['hub/base'] },
  { area: 'hub/domain', files: /^server\/domain\//, imports: ['hub/db', 'hub/base'] },
  { area: 'hub/auth', files: /^server\/auth\//, imports: ['hub/domain', 'hub/db', 'hub/base'] },
  { area: 'hub/api', files: /^server\/api\//, imports: ['hub/auth', 'hub/domain', 'hub/db', 'hub/base'] },
  // The production server: REST over Node streams and the /mcp proxy (one Node-stream hop).
  { area: 'hub/http', files: /^server\/http\//, imports: ['hub/api', 'hub/auth', 'hub/domain', 'hub/db', 'hub/base'] },
  {
    area: 'hub/cli',
    files: /^server\/(cli|cliLogs)\.ts$/,
    imports: ['hub/api', 'hub/auth', 'hub/domain', 'hub/db', 'hub/base'],
  },
  // Pages and routes reach the domain through the API (procedures, pageCaller, pageData); sessions through auth.
  {
    area: 'hub/pages',
    files: /^(app\/|proxy\.ts$|instrumentation\.ts$)/,
    imports: ['hub/api', 'hub/auth', 'hub/db', 'hub/base', 'hub/http'],
  },
  // Core: db and the engine → domain → hub (Core's client of the Hub) → auth → context → api (with mcp) → http.
  { area: 'core/base', files: /^core\/src\/(config|log|metrics)\.ts$/, imports: [] },
  { area: 'core/db', files: /^core\/src\/db\//, imports: ['core/base'] },
  { area: 'core/runtime', files: /^core\/src\/runtime\//, imports: ['core/base'] },
  {
    area: 'core/domain',
    files: /^core\/src\/domain\//,
    imports: ['core/db', 'core/runtime', 'core/base', 'core/shared'],
  },
  { area: 'core/hub', files: /^core\/src\/hub\//, imports: ['core/domain', 'core/db', 'core/base'] },
  { area: 'core/auth', files: /^core\/src\/auth\//, imports: ['core/hub', 'core/domain', 'core/db', 'core/base'] },
  {
    area: 'core/context',
    files: /^core\/src\/context\.ts$/,
    imports: ['core/auth', 'core/hub', 'core/domain', 'core/runtime', 'core/db', 'core/base'],
  },
  // MCP is an adapter beside the API: the API mounts it, it never imports the API.
  { area: 'core/mcp', files: /^core\/src\/mcp\//, imports: ['core/context', 'core/domain', 'core/db', 'core/base'] },
  {
    area: 'core/api',
    files: /^core\/src\/api\//,
    imports: ['core/mcp', 'core/context', 'core/auth', 'core/domain', 'core/db', 'core/base'],
  },
  { area: 'core/http', files: /^core\/src\/http\//, imports: ['core/api', 'core/context', 'core/base'] },
  {
    area: 'core/cli',
    files: /^core\/src\/cli\.ts$/,
    imports: ['core/http', 'core/context', 'core/domain', 'core/base'],
  },
  // What Core's server and its web UI both use (core/shared), and the generated client's types (type-only).
  { area: 'core/shared', files: /^core\/shared\//, imports: [] },
  { area: 'core/client', files: /^core\/client\/core-api\.d\.ts$/, imports: [] },
  { area: 'core/web', files: /^core\/web\//, imports: ['core/shared', 'core/client'] },
  // Scripts: the build tooling both services share, Core's scripts (scripts/core*), the Hub's; benchmarks.
  { area: 'tooling', files: /^scripts\/(build-server|test)\.mjs$/, imports: [] },
  { area: 'core/scripts', files: /^scripts\/core[^/]*$/, imports: ['core/*', 'tooling'] },
  { area: 'hub/scripts', files: /^scripts\//, imports: ['hub/*', 'tooling'] },
  { area: 'core/bench', files: /^core\/bench\//, imports: ['core/*', 'tooling'] },
  { area: 'hub/bench', files: /^bench\//, imports: ['hub/*', 'hub/scripts', 'tooling'] },
  // A package imports other packages only (through their names), never a service.
  { area: 'packages', files: /^packages\//, imports: [] },
];

/**
 * Arrows that break the table today, each with why it stays for now; the test fails when one is gone, so the
 * list only shrinks.
 */
const KNOWN_EXCEPTIONS: Record<string, string> = {
  // Benchmarks reuse the test fixtures (an OpenID provider, an engine); they should move to core/bench.
  'core/bench/auth.ts → core/tests/fixtures/oidc.ts': 'fixture shared with the tests',
  'core/bench/auth.ts → core/tests/helpers.ts': 'fixture shared with the tests',
  'core/bench/runtime.ts → core/tests/helpers.ts': 'fixture shared with the tests',
  'core/bench/runtime.ts → core/tests/engine/coreOnEngine.ts': 'fixture shared with the tests',
  'core/bench/runtime.ts → core/tests/engine/fixture.ts': 'fixture shared with the tests',
  // The screenshot script drives both services through the tests' process and engine fixtures.
  'scripts/core-deployment-screenshots.ts → core/tests/engine/fixture.ts': 'fixture shared with the tests',
  'scripts/core-deployment-screenshots.ts → tests/loop/processes.ts': 'fixture shared with the tests',
};

function areaOf(file: string) {
  return AREAS.find((a) => a.files.test(file))?.area ?? null;
}

function mayImport(from: string, to: string): boolean {
  const entry = AREAS.find((a) => a.area === from)!;
  return (
    to === from ||
    entry.imports.some((allowed) => (allowed.endsWith('/*') ? to.startsWith(allowed.slice(0, -1)) : allowed === to))
  );
}

function sourceFiles(rel: string): string[] {
  const stat = fs.statSync(path.join(ROOT, rel), { throwIfNoEntry: false });
  if (!stat) return [];
  if (stat.isFile()) return [rel];
  return fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = path.join(rel, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : sourceFiles(child);
    return EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !/\.d\.m?ts$/.test(entry.name) ? [child] : [];
  });
}

/** The project file an import specifier names, or null for packages (workspace packages included). */
function resolveImport(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith('@/')) base = specifier.slice(2);
  else if (specifier.startsWith('.')) base = path.join(path.dirname(from), specifier);
  else return null;
  for (const candidate of [
    base,
    ...[...EXTENSIONS, '.d.ts'].map((ext) => base + ext),
    ...EXTENSIONS.map((ext) => path.join(base, `index${ext}`)),
  ]) {
    if (fs.existsSync(path.join(ROOT, candidate)) && fs.statSync(path.join(ROOT, candidate)).isFile())
      return path.normalize(candidate);
  }
  throw new Error(`${from}: cannot resolve "${specifier}"`);
}

const IMPORT =
  /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCES.flatMap(sourceFiles)) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(IMPORT)) {
      const target = resolveImport(file, match[1] ?? match[2] ?? match[3]!);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Every cycle's files, found by a depth-first search (one cycle per back edge). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

/** Every arrow of `graph` the table does not allow, as "from → to". */
function forbidden(graph: Map<string, string[]>): string[] {
  return [...graph].flatMap(([file, targets]) => {
    const from = areaOf(file);
    if (!from) throw new Error(`${file} is in no area of the table`);
    return targets
      .filter((target) => {
        const to = areaOf(target);
        return to === null || !mayImport(from, to); // no area: a test, which no source imports
      })
      .map((target) => `${file} → ${target}`);
  });
}

describe('import graph', () => {
  const graph = importGraph();
  const arrows = forbidden(graph);

  it('reads the real tree (sanity: adapters import their dispatchers, every source has an area)', () => {
    expect(graph.size).toBeGreaterThan(400);
    expect(graph.get(path.normalize('app/api/v1/[...path]/route.ts'))).toContain(path.normalize('server/api/rest.ts'));
    expect(graph.get(path.normalize('core/src/http/server.ts'))).toContain(path.normalize('core/src/api/app.ts'));
    expect([...graph.keys()].filter((file) => areaOf(file) === null)).toEqual([]);
  });

  it('has no cycle', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('has no arrow the table forbids', () => {
    expect(arrows.filter((arrow) => !(arrow in KNOWN_EXCEPTIONS))).toEqual([]);
  });

  it('lists only exceptions that still exist', () => {
    expect(Object.keys(KNOWN_EXCEPTIONS).filter((arrow) => !arrows.includes(arrow))).toEqual([]);
  });

  it('fails on an arrow against the table (a planted one)', () => {
    const planted = new Map(graph);
    planted.set('server/domain/users.ts', [...(graph.get('server/domain/users.ts') ?? []), 'server/api/rest.ts']);
    planted.set('packages/ops/src/index.ts', ['server/config.ts']);
    planted.set('core/src/domain/users.ts', ['server/domain/users.ts']);
    planted.set('server/api/rest.ts', ['core/src/api/app.ts']);
    planted.set('scripts/hub-client.ts', ['tests/helpers.ts']);
    planted.set('server/auth/session.ts', ['server/api/trpc.ts']);
    expect(
      forbidden(planted)
        .filter((arrow) => !(arrow in KNOWN_EXCEPTIONS))
        .sort(),
    ).toEqual(
      [
        'server/domain/users.ts → server/api/rest.ts',
        'server/api/rest.ts → core/src/api/app.ts',
        'server/auth/session.ts → server/api/trpc.ts',
        'packages/ops/src/index.ts → server/config.ts',
        'core/src/domain/users.ts → server/domain/users.ts',
        'scripts/hub-client.ts → tests/helpers.ts',
      ].sort(),
    );
  });
});
