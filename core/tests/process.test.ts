/**
 * Core's real process: the CLI (JSON on stdout, errors on stderr, exit codes), the temporary admin
 * gone after a restart without its variables, and a SIGTERM that loses no audit record.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compiled, TEST_NODE_FLAGS } from '../../tests/compiled';
import { freshDatabase } from './helpers';
import { seedDataFolder } from '../../scripts/test-databases';

// Core's CLI as production runs it: compiled (core/vitest.config.ts builds it once per run; scripts/build-server.mjs).
const CLI = compiled('core');
// A hang guard, not a speed check: every CLI run opens PGlite on a data folder, which
// took over 20 s a run at load average 25 on the shared 2-core machine.
vi.setConfig({ testTimeout: 600_000 });

const TEMP = { SVC_TEMP_ADMIN_USERNAME: 'first-admin', SVC_TEMP_ADMIN_PASSWORD: 'temporary admin password' };
let db: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string;
let baseEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  db = await freshDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-process-'));
  // A migrated database (the CLI and the service are the subject here; creating a data folder is
  // secrets-at-rest-process's, and initdb costs ~4 s of CPU).
  if (!db.databaseUrl) seedDataFolder(path.join(dataDir, 'pgdata'), process.env.CORE_TEST_PGLITE_SNAPSHOT);
  baseEnv = { ...process.env };
  for (const k of Object.keys(baseEnv)) if (k.startsWith('CORE_') || k.startsWith('SVC_TEMP_ADMIN')) delete baseEnv[k];
  baseEnv = {
    ...baseEnv,
    CORE_URL: 'http://core.test',
    CORE_DATA_DIR: dataDir,
    CORE_SECRET: 'process-test-master-secret',
    CORE_PORT: '0',
    CORE_HOST: '127.0.0.1',
    ...(db.databaseUrl ? { CORE_DATABASE_URL: db.databaseUrl } : {}),
  };
});
afterAll(async () => {
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function cli(args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  const res = spawnSync(process.execPath, [...TEST_NODE_FLAGS, CLI, ...args], {
    env: { ...baseEnv, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 180_000, // a hang guard: the shared CI machine can starve one CLI run for a minute
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

interface Served {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

async function serve(env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, CLI, 'serve'], {
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Core did not start:\n${out}`)), 60_000);
    child.stderr!.on('data', () => {
      const m = /"url":"([^"]+)"[^\n]*"msg":"Core listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`Core exited (${code}):\n${out}`)));
  });
  return {
    url,
    child,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

async function call(base: string, method: string, p: string, token?: string, body?: unknown) {
  const res = await fetch(base + p, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return {
    status: res.status,
    body: (await res.text().then((t) => (t ? JSON.parse(t) : undefined))) as any,
    headers: res.headers,
  };
}

describe('CLI', () => {
  it('migrates, creates users and tokens with JSON on stdout, and fails with a message on stderr', () => {
    const migrate = cli(['migrate']);
    expect(migrate.status).toBe(0);
    expect(JSON.parse(migrate.stdout)).toEqual({ migrated: true, database: db.databaseUrl ? 'postgres' : 'pglite' });

    const user = cli(['user', 'create', '--email', 'ops@example.test', '--role', 'admin', '--name', 'Ops'], {
      input: 'a long enough password\n',
    });
    expect(user.stderr).toBe('');
    expect(user.status).toBe(0);
    expect(JSON.parse(user.stdout)).toEqual({ id: expect.any(String), email: 'ops@example.test', role: 'admin' });

    // The way back in for an admin who lost their password (docs/core-security.md).
    const reset = cli(['user', 'set-password', '--email', 'OPS@example.test'], { input: 'another long password\n' });
    expect(reset.stderr).toBe('');
    expect(JSON.parse(reset.stdout)).toEqual({
      id: JSON.parse(user.stdout).id,
      email: 'ops@example.test',
      role: 'admin',
      password: 'changed',
    });

    const token = cli(['token', 'create', '--name', 'ci', '--role', 'readonly', '--expires-in-days', '30']);
    expect(token.status).toBe(0);
    const parsed = JSON.parse(token.stdout);
    expect(parsed).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^svm_/),
      role: 'readonly',
      expires_at: expect.any(String),
    });

    const noExpiry = JSON.parse(cli(['token', 'create', '--name', 'forever', '--role', 'admin']).stdout);
    expect(noExpiry.expires_at).toBeNull();

    for (const [args, input, pattern] of [
      [
        ['user', 'create', '--email', 'x@example.test', '--role', 'operator'],
        'a long enough password',
        /operator.*needs admin/,
      ],
      [['user', 'create', '--email', 'y@example.test', '--role', 'readonly'], 'short', /password/],
      [
        ['user', 'create', '--email', 'ops@example.test', '--role', 'readonly'],
        'a long enough password',
        /already exists/,
      ],
      [['user', 'set-password', '--email', 'nobody@example.test'], 'a long enough password', /no local user/],
      [['user', 'set-password', '--email', 'ops@example.test'], 'short', /password/],
      [['token', 'create', '--name', 'x', '--role', 'readonly', '--expires-in-days', '366'], '', /1 to 365/],
      [['token', 'create', '--name', 'x', '--role', 'viewer'], '', /viewer/],
      [['token', 'create', '--role', 'admin'], '', /required option '--name <name>' not specified/],
      [['frobnicate'], '', /unknown command/],
    ] as [string[], string, RegExp][]) {
      const res = cli(args, { input });
      expect(res.status, args.join(' ')).not.toBe(0);
      expect(res.stdout, args.join(' ')).toBe('');
      expect(res.stderr, args.join(' ')).toMatch(pattern);
    }
  }, 240_000); // each command is a process that opens the database

  it('prints usage for --help on every command and sub-command, with exit 0', () => {
    for (const args of [
      ['--help'],
      ['help'],
      ['serve', '--help'],
      ['migrate', '-h'],
      ['user', 'create', '--help'],
      ['help', 'token'],
    ]) {
      const res = cli(args);
      expect(res.status, args.join(' ')).toBe(0);
      expect(res.stdout, args.join(' ')).toMatch(/Usage: core/);
    }
    const bad = cli(['token', 'create', '--name', 'x', '--role', 'admin', '--expires-in-days', 'soon']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(
      /--expires-in-days must be a whole number from 1 to 365; leave it out for a token that never expires/,
    );
    expect(bad.stderr).toMatch(/Usage: core token create/);
  });
});

describe('the running service', () => {
  it('the temporary admin works while its variables are set and is gone after a restart without them', async () => {
    let core = await serve(TEMP);
    const login = await call(core.url, 'POST', '/api/v1/auth/login', undefined, {
      username: TEMP.SVC_TEMP_ADMIN_USERNAME,
      password: TEMP.SVC_TEMP_ADMIN_PASSWORD,
    });
    expect(login.status).toBe(200);
    const me = await call(core.url, 'GET', '/api/v1/auth/me', login.body.access_token);
    expect(me.body).toMatchObject({ kind: 'temporary_admin', temporary: true });
    expect(me.headers.get('x-core-warning')).toBeTruthy();
    expect((await call(core.url, 'GET', '/api/v1/settings', login.body.access_token)).body.temporary_admin).toEqual({
      enabled: true,
    });
    const token = await call(core.url, 'POST', '/api/v1/tokens', login.body.access_token, {
      name: 'made by temp',
      role: 'readonly',
    });
    expect(token.body.created_by).toBe(TEMP.SVC_TEMP_ADMIN_USERNAME);
    if (!db.databaseUrl) {
      // The embedded database is locked while Core runs: the CLI says so.
      const locked = cli(['migrate']);
      expect(locked.status).not.toBe(0);
      expect(locked.stderr).toMatch(/in use by process \d+.*stop it first/);
    }
    expect(await core.stop()).toBe(0);

    core = await serve();
    try {
      expect((await call(core.url, 'GET', '/api/v1/auth/me', login.body.access_token)).status).toBe(401);
      expect(
        (await call(core.url, 'POST', '/api/v1/auth/refresh', undefined, { refresh_token: login.body.refresh_token }))
          .status,
      ).toBe(401);
      const again = await call(core.url, 'POST', '/api/v1/auth/login', undefined, {
        username: TEMP.SVC_TEMP_ADMIN_USERNAME,
        password: TEMP.SVC_TEMP_ADMIN_PASSWORD,
      });
      expect(again.status).toBe(401);
      // Its actions stay recorded under its username.
      expect(
        (await call(core.url, 'GET', '/api/v1/tokens', token.body.token)).body.tokens.find(
          (x: any) => x.id === token.body.id,
        ).created_by,
      ).toBe(TEMP.SVC_TEMP_ADMIN_USERNAME);
    } finally {
      await core.stop();
    }
  }, 180_000);

  it('SIGTERM ends the process cleanly and every audit record of the last requests is kept', async () => {
    const created = JSON.parse(cli(['token', 'create', '--name', 'burst', '--role', 'readonly']).stdout);
    let core = await serve();
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(core.url, i % 2 ? 'GET' : 'DELETE', i % 2 ? '/api/v1/secrets' : '/api/v1/secrets/x', created.token).then(
          (r) => r.status,
        ),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 403)).toHaveLength(20);
    expect(await core.stop()).toBe(0); // right away: the records are still queued in memory
    expect(core.output()).toMatch(/shutting down/);
    expect(core.output()).not.toMatch(/records lost/);

    core = await serve();
    try {
      const audit = await call(core.url, 'GET', `/api/v1/tokens/${created.id}/audit?limit=100`, created.token);
      expect(audit.body.pagination.total).toBe(40);
      expect(audit.body.records.filter((r: any) => r.status === 403 && r.method === 'DELETE')).toHaveLength(20);
    } finally {
      await core.stop();
    }
  }, 180_000);
});
