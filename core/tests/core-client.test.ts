/**
 * Core's generated client (issue 38): the committed types (core/client/core-api.d.ts) are exactly what
 * openapi-typescript makes of the document Core's real process serves, and the typed script written against
 * them (core/client/machine-token-audit.ts: sign in, create a machine token, list deployments with it, read its
 * audit records) runs against that process. On a drift failure: `npm run core-client`, then fix the script
 * where the typecheck says.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { seedDataFolder } from '../../scripts/test-databases';
import { compiled, TEST_NODE_FLAGS } from '../../tests/compiled';
import { CORE_CLIENT_DIR, coreTypesFor } from '../../scripts/core-document';
import { freshDatabase } from './helpers';

// A hang guard: Core's process opens PGlite on a data folder, slow on a loaded shared machine.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const ADMIN = { username: 'automation-admin', password: 'automation admin password' };
const TSX = path.resolve(import.meta.dirname, '../../node_modules/tsx/dist/cli.mjs');
let db: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string;
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  db = await freshDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-client-'));
  if (!db.databaseUrl) seedDataFolder(path.join(dataDir, 'pgdata'), process.env.CORE_TEST_PGLITE_SNAPSHOT);
  // Core's own variables come from this test alone.
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CORE_') || k.startsWith('SVC_TEMP_ADMIN')) delete env[k];
  child = spawn(process.execPath, [...TEST_NODE_FLAGS, compiled('core'), 'serve'], {
    env: {
      ...env,
      CORE_URL: 'http://core.test',
      CORE_DATA_DIR: dataDir,
      CORE_SECRET: 'core-client-test-master-secret',
      CORE_PORT: '0',
      CORE_HOST: '127.0.0.1',
      CORE_RUNTIME: 'none',
      SVC_TEMP_ADMIN_USERNAME: ADMIN.username,
      SVC_TEMP_ADMIN_PASSWORD: ADMIN.password,
      ...(db.databaseUrl ? { CORE_DATABASE_URL: db.databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Core did not start:\n${out}`)), 120_000);
    const seen = (d: Buffer) => {
      out += d;
      const m = /"url":"([^"]+)"[^\n]*"msg":"Core listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => reject(new Error(`Core exited (${code}):\n${out}`)));
  });
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await db?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

it('the committed client types are generated from the document Core serves (else: npm run core-client)', async () => {
  const doc = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as Record<string, unknown>;
  // Its server is CORE_URL, not the address the process listens on.
  expect(doc.servers).toEqual([{ url: 'http://core.test' }]);
  expect(fs.readFileSync(path.join(CORE_CLIENT_DIR, 'core-api.d.ts'), 'utf8')).toBe(await coreTypesFor(doc));
});

it('the typed script creates a machine token, lists deployments with it and reads its audit records', async () => {
  const run = await promisify(execFile)(process.execPath, [TSX, path.join(CORE_CLIENT_DIR, 'machine-token-audit.ts')], {
    env: { ...process.env, CORE_URL: url, CORE_USERNAME: ADMIN.username, CORE_PASSWORD: ADMIN.password },
    timeout: 120_000,
  });
  const summary = JSON.parse(run.stdout) as {
    token: { id: string; role: string; prefix: string };
    deployments: number;
    audit: { method: string; path: string; status: number }[];
  };
  expect(summary.token.role).toBe('readonly');
  expect(summary.token.prefix).toMatch(/^svm_/);
  expect(summary.deployments).toBe(0);
  expect(summary.audit).toEqual([{ method: 'GET', path: '/api/v1/deployments', status: 200 }]);
});

it('the script names the failed step and exits 1 when Core refuses it', async () => {
  const run = promisify(execFile)(process.execPath, [TSX, path.join(CORE_CLIENT_DIR, 'machine-token-audit.ts')], {
    env: { ...process.env, CORE_URL: url, CORE_USERNAME: ADMIN.username, CORE_PASSWORD: 'not the password' },
    timeout: 120_000,
  });
  await expect(run).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/^sign in: 401 .*request_id/) });
});
