#!/usr/bin/env node
/**
 * Compiles the two production entry points to plain JavaScript with esbuild, so that neither the Hub's
 * server nor Core's command line runs a TypeScript transform when it starts:
 *   hub:  server/http/serve.ts → dist/server/serve.mjs  (started by `npm start`, the e2e tests and the bench)
 *         and server/http/pagesThread.ts → dist/server/pages-thread.mjs (its Next.js thread: target hub-pages)
 *   core: core/src/cli.ts      → core/dist/cli.mjs      (`npm run core -- serve|migrate|user|token`)
 * Our own code (and workspace packages under packages/) is bundled into one ES module; every npm dependency
 * stays an import of node_modules. The bundles keep their source directory's depth (dist/server/ like
 * server/http/, core/dist/ like core/src/) because both look up their root relative to their own file.
 *
 * A bundle is rebuilt only when it is missing or one of its inputs (listed in <bundle>.inputs.json) changed
 * since: `npm start` on an existing build compiles nothing. `node scripts/build-server.mjs [hub|core] [--force]`.
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export const TARGETS = {
  hub: { entry: 'server/http/serve.ts', outfile: 'dist/server/serve.mjs' },
  // The thread the production server runs Next.js on (server/http/pages.ts), beside serve.mjs.
  'hub-pages': { entry: 'server/http/pagesThread.ts', outfile: 'dist/server/pages-thread.mjs' },
  core: { entry: 'core/src/cli.ts', outfile: 'core/dist/cli.mjs' },
  // The Hub's command line, and the processes the tests start (built once per test run by tests/global-setup.ts).
  'hub-cli': { entry: 'server/cli.ts', outfile: 'dist/server/cli.mjs', test: true },
  'edge-process': { entry: 'tests/fixtures/edge-process.ts', outfile: 'dist/test/edge-process.mjs', test: true },
  'hub-process': { entry: 'tests/fixtures/hub-process.ts', outfile: 'dist/test/hub-process.mjs', test: true },
};

/** Names of the workspace packages: bundled (they may ship TypeScript source), unlike npm dependencies. */
function workspaceNames() {
  const names = new Set();
  const pkgDir = path.join(root, 'packages');
  if (!fs.existsSync(pkgDir)) return names;
  for (const entry of fs.readdirSync(pkgDir)) {
    const file = path.join(pkgDir, entry, 'package.json');
    if (fs.existsSync(file)) names.add(JSON.parse(fs.readFileSync(file, 'utf8')).name);
  }
  return names;
}

/** True when the bundle is missing or older than one of the files it was built from. */
export function isStale(name) {
  const { outfile } = TARGETS[name];
  const out = path.join(root, outfile);
  const list = `${out}.inputs.json`;
  if (!fs.existsSync(out) || !fs.existsSync(list)) return true;
  const builtAt = fs.statSync(out).mtimeMs;
  const inputs = JSON.parse(fs.readFileSync(list, 'utf8'));
  return inputs.some((rel) => {
    const file = path.join(root, rel);
    return !fs.existsSync(file) || fs.statSync(file).mtimeMs > builtAt;
  });
}

/** Builds one target (esbuild takes well under a second); returns the bundle's path. */
export async function build(name) {
  const { entry, outfile } = TARGETS[name];
  const esbuild = await import('esbuild');
  const workspaces = workspaceNames();
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    outdir: path.dirname(outfile),
    entryNames: path.basename(outfile, '.mjs'),
    outExtension: { '.js': '.mjs' },
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    tsconfig: 'tsconfig.json',
    plugins: [externalDependencies(workspaces)],
  });
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/'));
  inputs.push('package.json', 'tsconfig.json');
  // Written under temporary names and renamed: a process starting meanwhile (or a build running beside this
  // one) reads either the old bundle or the new one, never half of one. The bundle is renamed last.
  const files = [
    ...result.outputFiles,
    { path: path.join(root, `${outfile}.inputs.json`), contents: Buffer.from(JSON.stringify(inputs)) },
  ];
  fs.mkdirSync(path.join(root, path.dirname(outfile)), { recursive: true });
  const ordered = files.sort((a, b) => Number(a.path.endsWith('.mjs')) - Number(b.path.endsWith('.mjs')));
  for (const file of ordered) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
  return path.join(root, outfile);
}

/**
 * Every bare import (an npm package, or one of its subpaths) stays external and is loaded from node_modules
 * as shipped; our '@/…' path alias and the workspace packages are bundled.
 */
function externalDependencies(workspaces) {
  return {
    name: 'external-dependencies',
    setup(b) {
      b.onResolve({ filter: /^(?:@[^/]+\/)?[^./@]/ }, (args) => {
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        const parts = args.path.split('/');
        const pkg = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
        return workspaces.has(pkg) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

/** Builds the target when it is stale; returns the bundle's path. */
export async function ensureBuilt(name) {
  if (isStale(name)) {
    const started = Date.now();
    await build(name);
    console.error(`[build] ${TARGETS[name].outfile} compiled in ${Date.now() - started} ms`);
  }
  return path.join(root, TARGETS[name].outfile);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(root, 'scripts/build-server.mjs')) {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const names = args.filter((a) => a !== '--force');
  for (const name of names.length ? names : Object.keys(TARGETS).filter((n) => !TARGETS[n].test)) {
    if (!TARGETS[name]) {
      console.error(`unknown target ${name}: use ${Object.keys(TARGETS).join(' or ')}`);
      process.exit(2);
    }
    if (force) await build(name);
    else await ensureBuilt(name);
  }
}
