/** The embedded database: persisted in HUB_DATA_DIR, and a second process gets a clear error, not corruption. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { node } from '../compiled';
import { seedDataFolder } from '../../scripts/test-databases';

// Each step starts Node processes that open PGlite: slow on a loaded machine.
vi.setConfig({ testTimeout: 240_000 });

const dir = mkdtempSync(path.join(tmpdir(), 'hub-embedded-'));
// A migrated database: persistence and the lock are the subject here; creating a folder is embedded-first-run's and
// secrets-at-rest-process's (initdb costs ~4 s of CPU).
seedDataFolder(dir, process.env.HUB_TEST_PGLITE_SNAPSHOT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { ...process.env, HUB_DATA_DIR: dir, DATABASE_URL: '' };
const tsx = path.join(process.cwd(), 'node_modules/.bin/tsx');

function cli(...args: string[]) {
  return spawnSync(...node('hub-cli', ...args), { env, encoding: 'utf8', timeout: 200_000 });
}

it('persists across processes', () => {
  const created = cli('user', 'create', '--email', 'Persist@Example.test', '--role', 'admin');
  expect(created.status, created.stderr).toBe(0);
  const first = JSON.parse(created.stdout);
  expect(first).toMatchObject({ email: 'persist@example.test', role: 'admin' });
  const again = cli('user', 'create', '--email', 'persist@example.test');
  expect(JSON.parse(again.stdout).id).toBe(first.id);
});

it('refuses a second process while one holds the data directory', async () => {
  const holder = spawn(
    tsx,
    [
      '-e',
      "import('./server/db/client.ts').then(m => m.getDatabase()).then(() => { console.log('open'); setInterval(() => {}, 1000); })",
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (d) => String(d).includes('open') && resolve());
      holder.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    const second = cli('migrate');
    expect(second.status).not.toBe(0);
    expect(second.stderr).toMatch(/in use by process \d+/);
    expect(second.stderr).toContain('DATABASE_URL');
  } finally {
    holder.kill('SIGTERM');
    await new Promise((r) => holder.once('exit', r));
  }
  // After the holder is gone (even without a clean shutdown) the directory opens again with its data.
  const after = cli('token', '--email', 'persist@example.test');
  expect(after.status, after.stderr).toBe(0);
  expect(after.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
});

it('the CLI reports bad usage on stderr with a non-zero exit', () => {
  const bad = cli('user', 'create', '--email', 'not-an-email');
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain('--email');
  expect(bad.stdout).toBe('');
  const unknown = cli('token', '--email', 'nobody@example.test');
  expect(unknown.status).toBe(1);
  expect(unknown.stderr).toContain('no user');
});

it('prints usage for --help on every command and sub-command, with exit 0', () => {
  for (const args of [
    ['--help'],
    ['help'],
    ['migrate', '--help'],
    ['user', 'create', '--help'],
    ['token', '-h'],
    ['seed', '--help'],
  ]) {
    const res = cli(...args);
    expect(res.status, args.join(' ')).toBe(0);
    expect(res.stdout, args.join(' ')).toMatch(/Usage: hub/);
  }
  const unknown = cli('frobnicate');
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toMatch(/unknown command 'frobnicate'[\s\S]*Usage: hub/);
});
