#!/usr/bin/env node
/**
 * `npm test`: the typecheck, the lint, the formatting check (Prettier), the Hub's tests and Core's tests, run
 * side by side rather than one after another (each suite already shares one build and one migrated database per run: tests/global-setup.ts,
 * core/tests/global-setup.ts). The Hub's tests print as they run; the other three print when they finish, each
 * under its own heading, then a summary of what passed and how long each took. Exits non-zero when one failed.
 *
 * The bundles the suites start (scripts/build-server.mjs) and Core's web frontend are built here first, so that
 * the two suites' global setups and processes never build the same thing at once.
 *
 * `npm test -- --suites-only` runs the two test suites without the static checks (CI's second run, on another
 * database and Node version: the checks' answer does not depend on either).
 */
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBuilt, TARGETS } from './build-server.mjs';

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--suites-only');
if (unknown.length > 0) {
  process.stderr.write(`npm test: unknown option ${unknown.join(' ')} (the one option is --suites-only)\n`);
  process.exit(2);
}

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
const started = Date.now();
for (const name of Object.keys(TARGETS)) await ensureBuilt(name);
// Core builds its web frontend at `serve` when it is missing: once here, not by two test files' Cores at once
// (on a fresh clone two builds side by side outlasted the loop tests' 60 s start-up wait). The bundle only: the
// typecheck job below checks the frontend's sources too (its own `npm run build` would check them again first).
if (!fs.existsSync(path.join(root, 'core/web/dist/index.html'))) {
  const web = spawnSync(bin('vite'), ['build'], {
    cwd: path.join(root, 'core/web'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (web.status !== 0) process.exit(web.status ?? 1);
}

// The static checks use the faster of two tools wherever they agree (docs/performance.md, "CI time"):
// - the type check: the native TypeScript compiler (tsgo, @typescript/native-preview), single-threaded beside the
//   suites (a quarter of tsc's CPU on a fresh clone); `npm run typecheck:tsc` runs tsc, which the editor uses;
// - the lint: oxlint (.oxlintrc.json: ESLint's recommended sets, ~1 % of ESLint's CPU). No lint rule reads types, and
//   ESLint (eslint.config.mjs) has no rule left to run: `npm run lint:eslint` is where a type-aware one would go;
// - the format check: Prettier with the oxc parser plugin (.prettierrc.json; same printer, same output, ~2/3 the CPU).
// tsgo and Prettier keep what they learnt about unchanged files (tsgo's build info, Prettier's cache under
// node_modules/.cache): a second run checks only what changed. CI starts cold, and was measured cold.
const cacheDir = path.join(root, 'node_modules/.cache');
const staticChecks = [
  {
    name: 'typecheck',
    command: bin('tsgo'),
    args: ['--noEmit', '--singleThreaded', '--tsBuildInfoFile', `${cacheDir}/tsgo/tsconfig.tsbuildinfo`],
  },
  { name: 'lint', command: bin('oxlint'), args: [] },
  {
    name: 'format',
    command: bin('prettier'),
    args: ['--check', '--cache', '--cache-location', `${cacheDir}/prettier/check-cache`, '.'],
  },
];
const jobs = [
  ...(args.includes('--suites-only') ? [] : staticChecks),
  { name: 'Hub tests', command: bin('vitest'), args: ['run'], live: true },
  { name: 'Core tests', command: bin('vitest'), args: ['run', '-c', 'core/vitest.config.ts'] },
];

const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

function run(job) {
  return new Promise((resolve) => {
    const begun = Date.now();
    const chunks = [];
    const child = spawn(job.command, job.args, {
      cwd: root,
      stdio: ['ignore', job.live ? 'inherit' : 'pipe', job.live ? 'inherit' : 'pipe'],
    });
    if (!job.live) {
      child.stdout.on('data', (d) => chunks.push(d));
      child.stderr.on('data', (d) => chunks.push(d));
    }
    child.on('close', (code, signal) => {
      const ok = code === 0;
      if (!job.live)
        process.stdout.write(
          `\n=== ${job.name}: ${ok ? 'passed' : 'FAILED'} (${seconds(Date.now() - begun)})\n${Buffer.concat(chunks).toString()}`,
        );
      resolve({ ...job, ok, code: code ?? signal, took: Date.now() - begun });
    });
  });
}

const stop = (signal) => process.exit(signal === 'SIGINT' ? 130 : 143);
process.on('SIGINT', stop).on('SIGTERM', stop);

const results = await Promise.all(jobs.map(run));
process.stdout.write(`\n=== npm test (${seconds(Date.now() - started)})\n`);
for (const r of results)
  process.stdout.write(
    `  ${r.ok ? 'passed' : 'FAILED'}  ${r.name} (${seconds(r.took)}${r.ok ? '' : `, exit ${r.code}`})\n`,
  );
process.exit(results.every((r) => r.ok) ? 0 : 1);
