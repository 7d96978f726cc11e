/**
 * First run on the embedded database: a running Hub shares its data folder's database on a local socket,
 * so the CLI and psql work while it runs (their writes reach the Hub's caches, and a client's open
 * transaction never swallows the Hub's queries); a new database gets the demo catalog on the Hub's first
 * start unless HUB_SEED_DEMO=false. Real processes: the Hub (tests/fixtures/hub-process.ts, which runs
 * server/http/embedded.ts like `npm start`), the CLI (server/cli.ts) and Debian's psql.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { shouldSeedDemo } from '../../server/http/embedded';
import { node } from '../compiled';
import { queryDataFolder } from '../../scripts/test-databases';

// Each Hub start opens PGlite on a new folder (initdb): slow on a loaded machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const dirs: string[] = [];
const hubs: ChildProcess[] = [];
afterAll(async () => {
  for (const hub of hubs) if (hub.exitCode === null) hub.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function newDataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-first-run-'));
  dirs.push(dir);
  return dir;
}

function envFor(dir: string, extra: Record<string, string> = {}) {
  return {
    ...process.env,
    DATABASE_URL: '',
    HUB_DATA_DIR: dir,
    HUB_FIXTURE_SEED: '',
    HUB_FIXTURE_USERS: '',
    HUB_LOG_LEVEL: 'info',
    ...extra,
  };
}

async function startHub(dir: string, extra: Record<string, string>) {
  // Node itself (no wrapper process, which could outlive a signal to it): SIGTERM reaches the Hub.
  const hub = spawn(...node('hub-process'), { env: envFor(dir, extra), stdio: ['ignore', 'pipe', 'pipe'] });
  hubs.push(hub);
  let output = '';
  hub.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    hub.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /LISTENING (\S+)/.exec(output);
      if (m) resolve(m[1]!);
    });
    hub.once('exit', (code) => reject(new Error(`the Hub exited ${code}: ${output}`)));
  });
  return { hub, url, output: () => output };
}

async function stopHub(hub: ChildProcess) {
  const exited = new Promise((r) => hub.once('exit', r));
  hub.kill('SIGTERM');
  await exited;
}

function cli(dir: string, ...args: string[]) {
  return spawnSync(...node('hub-cli', ...args), { env: envFor(dir), encoding: 'utf8', timeout: 200_000 });
}

/** psql on the data folder's socket, as the README says. */
function psql(dir: string, ...commands: string[]) {
  return spawn(
    'psql',
    [`host=${dir} user=postgres dbname=postgres`, '-X', '-At', ...commands.flatMap((c) => ['-c', c])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

function finished(child: ChildProcess) {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out })),
  );
}

async function catalog(url: string, query = '') {
  const res = await fetch(`${url}/api/v1/catalog/templates${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { templates: { slug: string }[]; pagination: { total: number } };
}

describe('a running embedded Hub', () => {
  it('answers the seed CLI and psql while it runs, and its caches see their writes', async () => {
    const dir = newDataDir();
    const { hub, url, output } = await startHub(dir, { HUB_SEED_DEMO: 'false', HUB_DB_STATEMENT_TIMEOUT_MS: '5000' });

    // HUB_SEED_DEMO=false: a new database starts with an empty catalog (and this answer is now cached).
    expect((await catalog(url)).pagination.total).toBe(0);
    // Log lines go out through pino's own asynchronous stream, not necessarily before LISTENING.
    await expect.poll(output).toContain('demo catalog not loaded (HUB_SEED_DEMO=false)');

    // The socket lives in the data folder, owner-only.
    const socket = path.join(dir, '.s.PGSQL.5432');
    const stat = fs.statSync(socket);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o077).toBe(0);

    // The README's next step works while the Hub runs: no "in use by process" refusal.
    const seeded = cli(dir, 'seed');
    expect(seeded.status, seeded.stderr).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ templatesInserted: 32, templatesTotal: 32 });

    // The Hub's cached empty answer is gone: its REST catalog shows the seeded templates.
    const after = await catalog(url);
    expect(after.pagination.total).toBeGreaterThanOrEqual(29);
    expect(after.templates.map((t) => t.slug)).toContain('ollama');

    // Other CLI commands too, and psql on the socket.
    const user = cli(dir, 'user', 'create', '--email', 'operator@example.test', '--role', 'superadmin');
    expect(user.status, user.stderr).toBe(0);
    const counted = await finished(
      psql(dir, 'select count(*) from templates', "select role from users where email = 'operator@example.test'"),
    );
    expect(counted).toEqual({ code: 0, out: '32\nsuperadmin\n' });

    // A psql transaction holds the database until it ends: the Hub's query waits and never runs inside it
    // (it would see the catalog deleted), and the rollback leaves everything in place.
    const holder = finished(psql(dir, 'begin', 'delete from templates', 'select pg_sleep(2)', 'rollback'));
    await new Promise((r) => setTimeout(r, 700));
    const during = await catalog(url, '?search=grafana'); // not cached: asks the database
    expect(during.templates.map((t) => t.slug)).toEqual(['grafana']);
    expect((await holder).code).toBe(0);
    expect((await finished(psql(dir, 'select count(*) from templates'))).out).toBe('32\n');

    // Session settings of a client stay its own: while psql sits idle after a SET, the Hub's queries run
    // with their own settings, and psql keeps its SET.
    const session = spawn('psql', [`host=${dir} user=postgres dbname=postgres`, '-X', '-At'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const sessionDone = finished(session);
    session.stdin!.write('set search_path = nowhere;\nselect 1;\n');
    await new Promise((r) => setTimeout(r, 700));
    expect((await catalog(url, '?search=redis')).templates.map((t) => t.slug)).toEqual(['redis']);
    session.stdin!.end('select count(*) from templates;\n');
    const sessionOut = await sessionDone;
    expect(sessionOut.out).toContain('relation "templates" does not exist');

    // One long statement from psql does not stop the Hub (the database runs on a thread of its own): /healthz
    // answers meanwhile; at HUB_DB_STATEMENT_TIMEOUT_MS the statement is ended (PGlite cannot cancel one: its
    // thread is restarted), psql is told why, and the Hub answers from the database again, nothing lost.
    const runaway = finished(psql(dir, 'select count(*) from generate_series(1, 100000000000)'));
    await new Promise((r) => setTimeout(r, 1_000));
    const asked = Date.now();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(Date.now() - asked).toBeLessThan(1_000);
    const ended = await runaway;
    expect(ended.code).not.toBe(0);
    expect(ended.out).toContain('canceling statement due to statement timeout');
    expect(ended.out).toContain('HUB_DB_STATEMENT_TIMEOUT_MS');
    await expect.poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 30_000 }).toBe(200);
    expect((await catalog(url, '?search=ollama')).templates.map((t) => t.slug)).toContain('ollama');
    await expect.poll(output).toContain('embedded database restarted');

    // Stopped, the Hub removes its socket; the CLI then opens the folder itself.
    await stopHub(hub);
    expect(fs.existsSync(socket)).toBe(false);
    const direct = cli(dir, 'seed');
    expect(direct.status, direct.stderr).toBe(0);
    expect(JSON.parse(direct.stdout)).toMatchObject({ templatesInserted: 0, templatesTotal: 32 });
  });

  it('loads the demo catalog on its first start on a new database, and only then', async () => {
    const dir = newDataDir();
    const first = await startHub(dir, { HUB_SEED_DEMO: 'true' });
    expect((await catalog(first.url)).pagination.total).toBeGreaterThanOrEqual(29);
    await expect.poll(first.output).toContain('loaded the demo catalog');
    await stopHub(first.hub);

    // Emptied by the operator, the catalog stays empty on the next start.
    await queryDataFolder(dir, 'delete from templates', { pg_trgm });
    const second = await startHub(dir, { HUB_SEED_DEMO: 'true' });
    expect((await catalog(second.url)).pagination.total).toBe(0);
    expect(second.output()).not.toContain('demo catalog');
    await stopHub(second.hub);
  });
});

it('never loads the demo catalog on PostgreSQL, nor when HUB_SEED_DEMO=false', () => {
  const pending = { demoCatalogPending: () => true };
  expect(shouldSeedDemo({ kind: 'pglite', ...pending }, true)).toBe(true);
  expect(shouldSeedDemo({ kind: 'pglite', ...pending }, false)).toBe(false);
  expect(shouldSeedDemo({ kind: 'postgres', ...pending }, true)).toBe(false);
  expect(shouldSeedDemo({ kind: 'pglite', demoCatalogPending: () => false }, true)).toBe(false);
  expect(shouldSeedDemo({ kind: 'pglite' }, true)).toBe(false);
});
