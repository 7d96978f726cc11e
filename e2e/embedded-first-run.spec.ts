/**
 * A newcomer's first run: the production server of `npm start` on a new embedded database (no
 * DATABASE_URL, no HUB_SEED_DEMO) shows the demo catalog in the browser, and the README's next step,
 * `npm run hub -- seed`, answers while the Hub runs (through the data folder's socket) instead of
 * stopping at the folder's lock; so does psql. Its own server on E2E_PORT+5 and a fresh data folder,
 * apart from the journeys' server and database.
 */
import { expect, test } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveCommand } from '../scripts/serve-command.mjs';

const root = path.resolve(import.meta.dirname, '..');
const port = Number(process.env.E2E_PORT ?? 3210) + 5;
// The server's master secret; the CLI that shares its database must open it with the same one.
const FIRST_RUN_SECRET = 'e2e-first-run-secret-e2e-first-run-secret';
const base = `http://127.0.0.1:${port}`;

let dir: string;
let server: ChildProcess;
let log = '';

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-e2e-first-run-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    HOSTNAME: '127.0.0.1',
    HUB_URL: `http://localhost:${port}`,
    HUB_DATA_DIR: dir,
    HUB_SECRET: FIRST_RUN_SECRET,
  };
  for (const name of ['DATABASE_URL', 'HUB_SEED_DEMO', 'AUTH_URL', 'AUTH_SECRET']) delete env[name];
  const [command, args] = serveCommand(root);
  server = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const deadline = Date.now() + 200_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the Hub exited ${server.exitCode}:\n${log}`);
    if (Date.now() > deadline) throw new Error(`the Hub did not answer:\n${log}`);
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 500));
  }
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('npm start on a new embedded database offers the demo catalog, and the seed CLI and psql answer while it runs', async ({
  page,
}) => {
  test.setTimeout(240_000);
  expect(log).toContain('loaded the demo catalog');

  await page.goto(`${base}/`);
  await expect(page.getByRole('link', { name: /Ollama/ }).first()).toBeVisible();
  await expect(page.getByText('The catalog is empty')).toHaveCount(0);

  // The README's next step while the Hub runs: no "in use by process" refusal.
  const seed = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'seed'], {
    cwd: root,
    env: { ...process.env, HUB_DATA_DIR: dir, DATABASE_URL: '', HUB_SECRET: FIRST_RUN_SECRET },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(seed.status, seed.stderr).toBe(0);
  expect(JSON.parse(seed.stdout)).toMatchObject({ templatesInserted: 0, templatesTotal: 32 });

  const user = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'server/cli.ts', 'user', 'create', '--email', 'first-run@example.test', '--role', 'superadmin'],
    {
      cwd: root,
      env: { ...process.env, HUB_DATA_DIR: dir, DATABASE_URL: '', HUB_SECRET: FIRST_RUN_SECRET },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  expect(user.status, user.stderr).toBe(0);

  // psql, exactly as the README and the start-up log say.
  const psql = spawnSync(
    'psql',
    [
      `host=${dir} user=postgres dbname=postgres`,
      '-X',
      '-At',
      '-c',
      "select count(*) from templates where slug = 'ollama'",
      '-c',
      "select role from users where email = 'first-run@example.test'",
    ],
    { encoding: 'utf8' },
  );
  expect(psql.stdout + psql.stderr).toBe('1\nsuperadmin\n');
  expect(log).toContain(`psql \\"host=${dir} user=postgres dbname=postgres\\"`);

  // The Hub kept serving throughout.
  await page.reload();
  await expect(page.getByRole('link', { name: /Grafana/ }).first()).toBeVisible();
});
