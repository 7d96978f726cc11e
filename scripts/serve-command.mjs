/**
 * How the production server (server/http/serve.ts) is started — by `npm start`, the end-to-end tests
 * and the benchmark alike. The one place its Node flags live: a capped old generation keeps the process
 * under 300 MB under load (the default heuristics let it grow past 800 MB on a busy admin list with no gain in
 * throughput). The young generation keeps V8's usual 16 MB semi-spaces: with 4 MB, objects of requests still in
 * flight (32 /mcp calls at once) outlived two scavenges and were promoted, and GC took 1.5-2x the CPU per request
 * (docs/performance.md, "The young generation, measured by GC time").
 *
 * The server runs compiled JavaScript (dist/server/serve.mjs, bundled by scripts/build-server.mjs with
 * esbuild), not TypeScript through a loader: serveCommand() compiles it first when the bundle is missing or
 * older than its sources (well under a second), so a changed source is never served stale.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { isStale } from './build-server.mjs';

export const SERVE_NODE_FLAGS = ['--max-semi-space-size=16', '--max-old-space-size=256'];

/** The server's bundles: serve.mjs and the thread it runs Next.js on. */
const SERVER_TARGETS = ['hub', 'hub-pages'];

/** Compiles the server when a bundle of it is missing or stale; returns the bundle's path. */
export function ensureServerBuild(root) {
  const bundle = path.join(root, 'dist/server/serve.mjs');
  const stale = SERVER_TARGETS.filter((name) => isStale(name));
  if (stale.length === 0) return bundle;
  const script = path.join(root, 'scripts/build-server.mjs');
  const result = spawnSync(process.execPath, [script, ...stale], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(
      `compiling the server failed (node scripts/build-server.mjs ${stale.join(' ')}: exit ${result.status})`,
    );
  return bundle;
}

/** [command, args] for child_process.spawn. */
export function serveCommand(root) {
  return [process.execPath, [...SERVE_NODE_FLAGS, ensureServerBuild(root)]];
}
