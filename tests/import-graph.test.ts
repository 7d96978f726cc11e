/**
 * The layering of the tree, checked on the sources: no import cycle anywhere in server/ and app/, and
 * no arrow from server/auth or server/domain (or server/db) up to server/api. Type-only imports count:
 * a cycle through types is still a cycle for the reader.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.mjs'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return EXTENSIONS.some((ext) => entry.name.endsWith(ext)) &&
      !entry.name.endsWith('.d.ts') &&
      !entry.name.endsWith('.d.mts')
      ? [rel]
      : [];
  });
}

/** The project file an import specifier names, or null for packages. */
function resolveImport(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith('@/')) base = specifier.slice(2);
  else if (specifier.startsWith('.')) base = path.join(path.dirname(from), specifier);
  else return null;
  for (const candidate of [
    base,
    ...EXTENSIONS.map((ext) => base + ext),
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
  for (const file of [...sourceFiles('server'), ...sourceFiles('app')]) {
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

describe('import graph', () => {
  const graph = importGraph();

  it('reads the real tree (sanity: the REST adapter imports the dispatcher)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(path.normalize('app/api/v1/[...path]/route.ts'))).toContain(path.normalize('server/api/rest.ts'));
  });

  it('has no cycle', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('has no arrow from server/auth, server/domain or server/db to server/api', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      /^server\/(auth|domain|db)\//.test(file)
        ? targets.filter((t) => t.startsWith('server/api/')).map((t) => `${file} → ${t}`)
        : [],
    );
    expect(upward).toEqual([]);
  });
});
