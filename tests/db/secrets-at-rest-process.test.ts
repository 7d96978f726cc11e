/**
 * Secrets at rest, as the operator meets them: real Hub processes (the compiled CLI and the production server's
 * entry, dist/server/serve.mjs from server/http/serve.ts, which opens the database before Next.js) on the embedded database.
 * - under the usual umask 022 the data folder is owner-only (folders 0700, files 0600);
 * - an existing world-readable folder is narrowed at start, with a log line;
 * - DATABASE_URL without HUB_SECRET is refused before any connection, saying how to make one;
 * - a wrong HUB_SECRET is refused at start with what to do;
 * - `hub secret rotate` takes the new secret on stdin.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { seedDataFolder } from '../../scripts/test-databases';
import { compiled, TEST_NODE_FLAGS, type CompiledName } from '../compiled';

// Each step starts Node processes that open PGlite: slow on a loaded machine.
vi.setConfig({ testTimeout: 240_000 });

const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-at-rest-'));
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));
let n = 0;
const newDataDir = () => path.join(parent, `data-${++n}`);
/** A data folder whose database is already migrated (tests about the secret beside it, not about creating it). */
const seededDataDir = () => {
  const dir = newDataDir();
  seedDataFolder(dir, process.env.HUB_TEST_PGLITE_SNAPSHOT);
  return dir;
};

/** A compiled Hub entry point (as `npm start` runs it) in a shell whose umask is 022, with only the given Hub variables. */
function run(bundle: CompiledName, args: string[], env: Record<string, string>, input = '') {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) if (/^(HUB_|DATABASE_URL$)/.test(k)) delete base[k];
  const command = `umask 022 && exec "${process.execPath}" ${TEST_NODE_FLAGS.join(' ')} "${compiled(bundle)}" ${args.join(' ')}`;
  const res = spawnSync('sh', ['-c', command], {
    env: { ...base, HUB_URL: 'http://hub.test', HUB_LOG_LEVEL: 'info', PORT: '0', HOSTNAME: '127.0.0.1', ...env },
    input,
    encoding: 'utf8',
    timeout: 200_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}
const hub = (args: string[], env: Record<string, string>, input = '') => run('hub-cli', args, env, input);
const serve = (env: Record<string, string>) => run('hub', [], env);

function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.mode & 0o077 && !st.isSocket())
      found.push(`${path.relative(dir, p) || '.'} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) visit(path.join(p, e));
  };
  visit(dir);
  return found;
}

const SECRET = 'hub-process-master-secret-0123456789abcdef';

describe('the data folder under umask 022', () => {
  it('is created owner-only: the folder, the database files and the generated master secret', () => {
    const dir = newDataDir();
    const r = hub(['migrate'], { HUB_DATA_DIR: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, 'master-secret')).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
    expect(openToOthers(dir)).toEqual([]);
  });

  it('an existing world-readable folder is narrowed at start, with a log line', () => {
    const dir = seededDataDir();
    spawnSync('chmod', ['-R', 'go+rX', dir]); // as earlier versions left it
    fs.chmodSync(path.join(dir, 'PG_VERSION'), 0o666);
    expect(openToOthers(dir).length).toBeGreaterThan(5);
    const r = hub(['migrate'], { HUB_DATA_DIR: dir });
    expect(r.status, r.stderr).toBe(0);
    // The CLI's logs go to stderr (its result alone to stdout).
    const line = r.stderr.split('\n').find((l) => l.includes('data folder was readable by other users'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 40, data_dir: dir });
    expect(openToOthers(dir)).toEqual([]);
  });
});

describe('the master secret at start', () => {
  it('DATABASE_URL without HUB_SECRET: the server refuses before any connection, saying how to make one', () => {
    const r = serve({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('DATABASE_URL is set (a database server) but HUB_SECRET is not');
    expect(r.stdout).toContain('openssl rand -base64 32');
    expect(r.stdout).not.toContain('ECONNREFUSED');
    const cli = hub(['migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('but HUB_SECRET is not');
  });

  it('a wrong HUB_SECRET: the server refuses with what happened and what to do', () => {
    const dir = seededDataDir();
    expect(hub(['migrate'], { HUB_DATA_DIR: dir, HUB_SECRET: SECRET }).status).toBe(0);
    const r = serve({ HUB_DATA_DIR: dir, HUB_SECRET: 'another-secret-0123456789abcdef0123456789' });
    expect(r.status).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    expect(r.stdout).toContain(
      `HUB_SECRET does not match the secret this database was sealed with (first sealed ${today}); ` +
        'start with the original secret, or see README: rotating the master secret',
    );
    expect(r.stdout).not.toContain('unable to authenticate data');
  });

  it('`hub secret rotate` re-seals under the secret on stdin and replaces the generated file', () => {
    const dir = seededDataDir();
    expect(hub(['migrate'], { HUB_DATA_DIR: dir }).status).toBe(0);
    const old = fs.readFileSync(path.join(dir, 'master-secret'), 'utf8').trim();
    const next = 'rotated-hub-master-secret-0123456789abcdef';
    const r = hub(['secret', 'rotate'], { HUB_DATA_DIR: dir }, next + '\n');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rotated: true, secret_file: path.join(dir, 'master-secret') });
    expect(fs.readFileSync(path.join(dir, 'master-secret'), 'utf8').trim()).toBe(next);
    expect(hub(['migrate'], { HUB_DATA_DIR: dir, HUB_SECRET: old }).stderr).toContain('HUB_SECRET does not match');
    expect(hub(['migrate'], { HUB_DATA_DIR: dir }).status).toBe(0);
    const empty = hub(['secret', 'rotate'], { HUB_DATA_DIR: dir }, '\n');
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('the new master secret on stdin is empty');
  });
});
