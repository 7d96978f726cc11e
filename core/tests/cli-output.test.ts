/**
 * `npm run --silent core -- …` in a pipe: the CLI's result is all of stdout (JSON), its logs go to stderr. Every
 * command that prints a result runs while a warning is logged: a data folder other users can read is made
 * owner-only, with a warning. (`serve` prints no result: its logs are its output, on stderr: process.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { compiled, TEST_NODE_FLAGS } from '../../tests/compiled';
import { seedDataFolder } from '../../scripts/test-databases';

describe("Core's CLI writes its result to stdout and its logs to stderr", () => {
  vi.setConfig({ testTimeout: 600_000 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cli-output-'));
  seedDataFolder(path.join(dataDir, 'pgdata'), process.env.CORE_TEST_PGLITE_SNAPSHOT);
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test' };
  Object.assign(env, { CORE_DATA_DIR: dataDir, CORE_SECRET: 'cli-output-master-secret', CORE_URL: 'http://core.test' });

  /** Runs a command while a warning is logged (the folder readable by others); returns its stdout. */
  const run = (args: string[], input = '') => {
    fs.chmodSync(dataDir, 0o755);
    const res = spawnSync(process.execPath, [...TEST_NODE_FLAGS, compiled('core'), ...args], {
      env,
      input,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(res.status, res.stderr).toBe(0);
    const lines = res.stderr.split('\n').filter((line) => line.startsWith('{'));
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, msg: expect.stringContaining('owner-only') }));
    return res.stdout;
  };

  it('migrate: stdout is the outcome as JSON, nothing else', () => {
    expect(JSON.parse(run(['migrate']))).toEqual({ migrated: true, database: 'pglite' });
  });

  it('user create: stdout is the user as JSON, nothing else', () => {
    const stdout = run(['user', 'create', '--email', 'pipe@example.test', '--role', 'admin'], 'a long enough password');
    expect(JSON.parse(stdout)).toMatchObject({ email: 'pipe@example.test', role: 'admin' });
  });

  it('token create: stdout is the token as JSON, nothing else', () => {
    const stdout = run(['token', 'create', '--name', 'ci', '--role', 'readonly']);
    expect(JSON.parse(stdout)).toMatchObject({ token: expect.stringMatching(/^svm_/), role: 'readonly' });
  });

  it('user set-password: stdout is the user as JSON, nothing else', () => {
    const stdout = run(['user', 'set-password', '--email', 'pipe@example.test'], 'another long password');
    expect(JSON.parse(stdout)).toMatchObject({ email: 'pipe@example.test', role: 'admin', password: 'changed' });
  });

  // Last: CORE_SECRET in this environment no longer opens the database afterwards.
  it('secret rotate: stdout is the rotation report as JSON, nothing else', () => {
    const report = JSON.parse(
      run(['secret', 'rotate'], 'cli-output-next-master-secret-of-32-characters-at-least\n'),
    ) as Record<string, unknown>;
    expect(report).toMatchObject({
      rotated: true,
      resealed: expect.any(Number),
      next_step: expect.stringContaining('CORE_SECRET'),
    });
  });
});
