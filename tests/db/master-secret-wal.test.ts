/**
 * The master secret an earlier version kept in hub_settings leaves every file of the data folder when `hub migrate`
 * moves it out (issue 34): not only the table's pages but the write-ahead log, which VACUUM FULL and a checkpoint
 * alone leave holding it in pg_wal/. Real processes (the compiled CLI) on a seeded embedded database; the legacy
 * row is planted directly in the folder's database; afterwards the bytes of every file are searched for the value.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filesHolding, PURGE_PENDING_FILE } from '@shared/seal/master';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { queryDataFolder, seedDataFolder } from '../../scripts/test-databases';
import { compiled, TEST_NODE_FLAGS } from '../compiled';

vi.setConfig({ testTimeout: 240_000 });

const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-master-wal-'));
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));
let n = 0;

function hub(args: string[], env: Record<string, string>) {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) if (/^(HUB_|DATABASE_URL$)/.test(k)) delete base[k];
  const res = spawnSync(process.execPath, [...TEST_NODE_FLAGS, compiled('hub-cli'), ...args], {
    env: { ...base, HUB_URL: 'http://hub.test', HUB_LOG_LEVEL: 'info', ...env },
    encoding: 'utf8',
    timeout: 200_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** Every file under dir whose bytes contain value, the master secret's own file included. */
function anyFileHolding(dir: string, value: string): string[] {
  const needle = Buffer.from(value);
  const found: string[] = [];
  const visit = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) visit(path.join(p, e));
    else if (st.isFile() && fs.readFileSync(p).includes(needle)) found.push(path.relative(dir, p));
  };
  visit(dir);
  return found;
}

/** A migrated data folder whose hub_settings holds 'master_secret' as an earlier version left it; answers the value. */
async function legacyFolder(): Promise<{ dir: string; value: string }> {
  const dir = path.join(parent, `data-${++n}`);
  seedDataFolder(dir, process.env.HUB_TEST_PGLITE_SNAPSHOT);
  const first = hub(['migrate'], { HUB_DATA_DIR: dir });
  expect(first.status, first.stderr).toBe(0);
  const file = path.join(dir, 'master-secret');
  const value = fs.readFileSync(file, 'utf8').trim();
  await queryDataFolder(dir, `insert into hub_settings (key, value) values ('master_secret', '${value}')`);
  fs.rmSync(file); // the earlier version had no file: the row was the only copy
  // Planted where an attacker with a copy of the folder would look: the table's pages and the log.
  expect(anyFileHolding(dir, value).some((f) => f.startsWith('pg_wal/'))).toBe(true);
  return { dir, value };
}

const legacyRows = (dir: string) =>
  queryDataFolder<{ key: string }>(dir, `select key from hub_settings where key = 'master_secret'`);

describe('hub migrate with a legacy master_secret row', () => {
  it('moves it to the master-secret file and leaves no other file of the folder holding it, pg_wal/ included', async () => {
    const { dir, value } = await legacyFolder();
    const r = hub(['migrate'], { HUB_DATA_DIR: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'master-secret'), 'utf8').trim()).toBe(value);
    expect(anyFileHolding(dir, value)).toEqual(['master-secret']);
    expect(fs.existsSync(path.join(dir, PURGE_PENDING_FILE))).toBe(false);
    expect(await legacyRows(dir)).toEqual([]);
    // The folder opens again, sealed values and all.
    const again = hub(['migrate'], { HUB_DATA_DIR: dir });
    expect(again.status, again.stderr).toBe(0);
  });

  it('with HUB_SECRET set: the row is deleted and no file at all holds the value', async () => {
    const { dir, value } = await legacyFolder();
    const r = hub(['migrate'], { HUB_DATA_DIR: dir, HUB_SECRET: value });
    expect(r.status, r.stderr).toBe(0);
    expect(anyFileHolding(dir, value)).toEqual([]);
    expect(await legacyRows(dir)).toEqual([]);
  });

  it('a folder still holding it after the rewrite is refused at every start, naming the files, until it is clean', async () => {
    const { dir, value } = await legacyFolder();
    // A copy the rewrite cannot reach (as a crash or a kept log segment would leave one).
    fs.writeFileSync(path.join(dir, 'stray-copy'), `kept: ${value}\n`, { mode: 0o600 });
    const refused = hub(['migrate'], { HUB_DATA_DIR: dir });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `1 file in ${dir} still holds it (stray-copy). Hub does not start until they are rewritten`,
    );
    expect(refused.stderr).not.toContain(value);
    expect(fs.existsSync(path.join(dir, PURGE_PENDING_FILE))).toBe(true);
    // The row has left the database already; the pending file makes the next start check again.
    expect(await legacyRows(dir)).toEqual([]);
    expect(hub(['migrate'], { HUB_DATA_DIR: dir }).status).toBe(1);
    fs.rmSync(path.join(dir, 'stray-copy'));
    const clean = hub(['migrate'], { HUB_DATA_DIR: dir });
    expect(clean.status, clean.stderr).toBe(0);
    expect(filesHolding(dir, value)).toEqual([]);
    expect(fs.existsSync(path.join(dir, PURGE_PENDING_FILE))).toBe(false);
  });
});
