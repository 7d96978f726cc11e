/**
 * `npm run --silent hub -- …` in a pipe: the CLI's result is all of stdout (JSON for every command, the JWT for
 * `token`), while its logs go to stderr. Every command runs while a warning is logged: a data folder other users can
 * read is made owner-only, with a warning (it was printed on stdout before the result, which broke `| jq`).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { node } from '../compiled';
import { seedDataFolder } from '../../scripts/test-databases';

describe('the Hub CLI writes its result to stdout and its logs to stderr', () => {
  vi.setConfig({ testTimeout: 240_000 });
  const dir = mkdtempSync(path.join(tmpdir(), 'hub-cli-output-'));
  seedDataFolder(dir, process.env.HUB_TEST_PGLITE_SNAPSHOT);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { ...process.env, HUB_DATA_DIR: dir, DATABASE_URL: '' };
  /** Runs a command while a warning is logged (the folder readable by others); returns stdout and stderr. */
  const run = (args: string[], input = '') => {
    chmodSync(dir, 0o755);
    const result = spawnSync(...node('hub-cli', ...args), { env, input, encoding: 'utf8', timeout: 200_000 });
    expect(result.status, result.stderr).toBe(0);
    const warnings = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(warnings).toContainEqual(expect.objectContaining({ level: 40, msg: expect.stringContaining('owner-only') }));
    return result.stdout;
  };

  it('a setting that cannot be used: one line on stderr naming it, nothing on stdout, exit 1', () => {
    const result = spawnSync(...node('hub-cli', 'migrate'), { env: { ...env, PORT: '70000' }, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'hub: PORT must be an integer from 0 to 65535, got "70000"; fix the setting and run the command again\n',
    );
  });

  it('migrate: stdout is the outcome as JSON, nothing else', () => {
    expect(JSON.parse(run(['migrate']))).toEqual({ migrated: true, database: 'pglite' });
  });

  it('user create: stdout is the user as JSON, nothing else', () => {
    const stdout = run(['user', 'create', '--email', 'pipe@example.test']);
    expect(JSON.parse(stdout)).toMatchObject({ email: 'pipe@example.test', role: 'user' });
  });

  it('token: stdout is the JWT and a newline, nothing else', () => {
    const stdout = run(['token', '--email', 'pipe@example.test', '--ttl', '600']);
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const claims = decodeJwt(stdout.trim());
    expect(claims.exp! - claims.iat!).toBe(600);
  });

  it('seed: stdout is what the seed did as JSON, nothing else', () => {
    const seeded = {
      categories: expect.any(Number),
      templatesInserted: expect.any(Number),
      templatesTotal: expect.any(Number),
    };
    expect(JSON.parse(run(['seed']))).toEqual(seeded);
  });

  // Last: the data folder's master secret is replaced (HUB_SECRET in this environment would no longer open it).
  it('secret rotate: stdout is the rotation report as JSON, nothing else', () => {
    const report = JSON.parse(
      run(['secret', 'rotate'], 'cli-output-next-master-secret-of-32-characters-at-least\n'),
    ) as Record<string, unknown>;
    expect(report).toMatchObject({ rotated: true, resealed: expect.any(Number) });
  });
});
