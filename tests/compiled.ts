/**
 * The processes the tests start run compiled JavaScript, as production does (scripts/build-server.mjs):
 * tests/global-setup.ts builds every bundle once per run, so a spawned Hub, CLI or Core starts in plain Node
 * without compiling TypeScript each time. `node(name, ...args)` is [command, args] for spawn/spawnSync.
 */
import path from 'node:path';
import { TARGETS } from '../scripts/build-server.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');

export type CompiledName = keyof typeof TARGETS;

/** The bundle's absolute path. */
export function compiled(name: CompiledName): string {
  return path.join(ROOT, TARGETS[name].outfile);
}

/**
 * Node flags of every process a test starts (and of the test workers: vitest.config.ts, core/vitest.config.ts).
 * `--liftoff-only`: V8 compiles PGlite's WebAssembly (Postgres, ~30 MB) with its baseline compiler only, instead of
 * also optimizing all of it on background threads. A test process lives seconds: the optimizing pass cost it
 * about 1.4 s of CPU per database opened and sped up nothing it ran (measured: 3.4 → 1.9 s CPU to load the
 * migrated snapshot and run 300 queries). It changes how V8 compiles, not what the code does.
 */
export const TEST_NODE_FLAGS = ['--liftoff-only'];

/** Node with a bundle, for spawn(...node(...)). */
export function node(name: CompiledName, ...args: string[]): [string, string[]] {
  return [process.execPath, [...TEST_NODE_FLAGS, compiled(name), ...args]];
}
