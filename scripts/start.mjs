#!/usr/bin/env node
/**
 * `npm start`: build once if there is no production build, then serve the Hub with `next start`.
 * Migrations are applied by the server when it first opens the database.
 */
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const nextBin = `${root}node_modules/next/dist/bin/next`;

if (!existsSync(`${root}.next/BUILD_ID`)) {
  console.log('[hub] no production build yet: running next build (once)…');
  const build = spawnSync(process.execPath, [nextBin, 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = process.env.PORT ?? '3000';
const server = spawn(process.execPath, [nextBin, 'start', '-p', port, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
