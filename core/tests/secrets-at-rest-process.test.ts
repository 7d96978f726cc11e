/**
 * Secrets at rest, as the operator meets them: real Core processes (the CLI, `serve`) on the embedded database.
 * - under the usual umask 022 the data folder is owner-only (folders 0700, files 0600);
 * - an existing world-readable folder is narrowed at start, with a log line;
 * - a database server without CORE_SECRET is refused before any connection, saying how to make one;
 * - a wrong CORE_SECRET is refused at start with what to do (not "unable to authenticate data");
 * - `core secret rotate` takes the new secret on stdin.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seedDataFolder } from '../../scripts/test-databases';
import { compiled, TEST_NODE_FLAGS } from '../../tests/compiled';

// Each step starts Node processes that open PGlite: slow on a loaded machine.
vi.setConfig({ testTimeout: 240_000 });

// The compiled CLI, as `npm run core` runs it (core/tests/global-setup.ts builds it once per run).
const CLI = compiled('core');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function newDataDir() {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'core-at-rest-'));
  dirs.push(parent);
  return path.join(parent, 'data');
}
/** A data folder whose database is already migrated (tests about the secret beside it, not about creating it). */
function seededDataDir() {
  const dataDir = newDataDir();
  seedDataFolder(path.join(dataDir, 'pgdata'), process.env.CORE_TEST_PGLITE_SNAPSHOT);
  return dataDir;
}

/** Core's CLI in a shell whose umask is 022, with only the given CORE_ variables. */
function core(args: string[], env: Record<string, string>, input = '') {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('CORE_') || k.startsWith('SVC_TEMP_ADMIN')) delete base[k];
  const command = `umask 022 && exec "${process.execPath}" ${TEST_NODE_FLAGS.join(' ')} "${CLI}" ${args.join(' ')}`;
  const res = spawnSync('sh', ['-c', command], {
    env: { ...base, CORE_PORT: '0', CORE_HOST: '127.0.0.1', CORE_LOG_LEVEL: 'info', ...env },
    input,
    encoding: 'utf8',
    timeout: 200_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** Every path below dir (dir included) whose permissions let the group or others in. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.mode & 0o077) found.push(`${path.relative(dir, p) || '.'} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) visit(path.join(p, e));
  };
  visit(dir);
  return found;
}

const SECRET = 'core-process-master-secret-0123456789abcdef';

describe('the data folder under umask 022', () => {
  it('is created owner-only: the folder, the database files and the generated master secret', () => {
    const dataDir = newDataDir();
    const r = core(['migrate'], { CORE_DATA_DIR: dataDir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dataDir, 'master-secret')).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.join(dataDir, 'pgdata')).length).toBeGreaterThan(5);
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it('an existing world-readable folder is narrowed at start, with a log line', () => {
    const dataDir = seededDataDir();
    expect(core(['migrate'], { CORE_DATA_DIR: dataDir, CORE_SECRET: SECRET }).status).toBe(0);
    // As earlier versions left it: folders 0755, files 0644/0666.
    spawnSync('chmod', ['-R', 'go+rX', dataDir]);
    fs.chmodSync(path.join(dataDir, 'pgdata', 'PG_VERSION'), 0o666);
    expect(openToOthers(dataDir).length).toBeGreaterThan(5);
    const r = core(['migrate'], { CORE_DATA_DIR: dataDir, CORE_SECRET: SECRET });
    expect(r.status).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.includes('data folder was readable by other users'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 40, data_dir: dataDir });
    expect(openToOthers(dataDir)).toEqual([]);
  });
});

describe('the master secret at start', () => {
  it('a database server without CORE_SECRET: refused before any connection, saying how to make one', () => {
    // Port 1: nothing listens; the refusal must come first, not a connection error.
    const r = core(['serve'], { CORE_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('CORE_DATABASE_URL is set (a database server) but CORE_SECRET is not');
    expect(r.stderr).toContain('openssl rand -base64 32');
    expect(r.stderr).not.toMatch(/ECONNREFUSED/);
  });

  it('a wrong CORE_SECRET: refused with what happened and what to do', () => {
    const dataDir = seededDataDir();
    expect(core(['migrate'], { CORE_DATA_DIR: dataDir, CORE_SECRET: SECRET }).status).toBe(0);
    const r = core(['serve'], { CORE_DATA_DIR: dataDir, CORE_SECRET: 'another-secret-0123456789abcdef0123456789' });
    expect(r.status).not.toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(r.stderr).toContain(
      `CORE_SECRET does not match the secret this database was sealed with (first sealed ${today}); ` +
        'start with the original secret, or see README: rotating the master secret',
    );
    expect(r.stderr).not.toContain('unable to authenticate data');
  });

  it('`core secret rotate` re-seals under the secret on stdin; then only the new secret opens the database', () => {
    const dataDir = seededDataDir();
    expect(core(['migrate'], { CORE_DATA_DIR: dataDir, CORE_SECRET: SECRET }).status).toBe(0);
    const next = 'rotated-core-master-secret-0123456789abcdef';
    const r = core(['secret', 'rotate'], { CORE_DATA_DIR: dataDir, CORE_SECRET: SECRET }, next + '\n');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      rotated: true,
      resealed: 1,
      next_step: expect.stringContaining('CORE_SECRET'),
    });
    expect(core(['migrate'], { CORE_DATA_DIR: dataDir, CORE_SECRET: SECRET }).stderr).toContain(
      'CORE_SECRET does not match',
    );
    expect(core(['migrate'], { CORE_DATA_DIR: dataDir, CORE_SECRET: next }).status).toBe(0);
    const empty = core(['secret', 'rotate'], { CORE_DATA_DIR: dataDir, CORE_SECRET: next }, '\n');
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('the new master secret on stdin is empty');
  });
});
