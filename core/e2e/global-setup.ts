/**
 * Starts what the journeys need and returns the teardown:
 *  - the frontend build (core/web/dist, `npm run build -w core-web`),
 *  - a real OpenID provider on 127.0.0.1 (the backend tests' fixture) with a public PKCE client redirecting to Core,
 *  - Core itself, `npm run core -- serve`, on a free port with a temporary data directory (embedded database),
 *    the temporary admin and OIDC configured by the environment,
 *  - two local users (an admin and a readonly one) and a secret, created through the API.
 * What the tests need is handed over in CORE_E2E_* environment variables (workers inherit them).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../../scripts/build-server.mjs';
import { startOidcProvider } from '../tests/fixtures/oidc';
import { E2E } from './env';

const root = path.resolve(import.meta.dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function call<T>(base: string, method: string, p: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(base + p, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export default async function globalSetup() {
  const chromium = process.env.CORE_E2E_CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(chromium))
    throw new Error(`${chromium} not found: install Debian's chromium package (apt-get install chromium)`);

  const build = spawnSync('npm', ['run', '--silent', 'build', '-w', 'core-web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`the frontend build failed (exit ${build.status})`);
  // hub.spec.ts starts a real Hub (the Hub's own test process), compiled like the Hub's tests compile it.
  await ensureBuilt('hub-process');

  // CORE_E2E_PORT pins the port (engineers sharing a machine each use their own range); otherwise a free one.
  const port = Number(process.env.CORE_E2E_PORT) || (await freePort());
  const coreUrl = `http://localhost:${port}`;
  const oidc = await startOidcProvider({ redirectUris: [`${coreUrl}/auth/callback`] });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-e2e-'));
  const logDir = path.join(root, 'test-results/core-e2e');
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, 'core.log');
  const log = fs.openSync(logFile, 'w');
  // Always the embedded database in a fresh directory, whatever this shell points CORE_DATABASE_URL at.
  const { CORE_DATABASE_URL: _ignored, ...inherited } = process.env;
  const env = {
    ...inherited,
    CORE_PORT: String(port),
    CORE_URL: coreUrl,
    CORE_DATA_DIR: dataDir,
    SVC_TEMP_ADMIN_USERNAME: E2E.tempAdmin.username,
    SVC_TEMP_ADMIN_PASSWORD: E2E.tempAdmin.password,
    CORE_OIDC_ISSUER: oidc.issuer,
    CORE_OIDC_CLIENT_ID: oidc.clientId,
    CORE_OIDC_AUDIENCE: oidc.audience,
    CORE_OIDC_SCOPES: 'openid email profile offline_access',
    CORE_OIDC_DEFAULT_ROLE: 'readonly',
    // No container engine here unless asked for (CORE_E2E_RUNTIME=docker with DOCKER_HOST): the pages show the
    // desired state and say the engine is missing, whatever engine this machine happens to run.
    CORE_RUNTIME: process.env.CORE_E2E_RUNTIME ?? 'none',
  };
  // Its own process group, so that the teardown ends npm, tsx and Core together.
  const core = spawn('npm', ['run', '--silent', 'core', '--', 'serve'], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', log, log],
  });

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (core.exitCode !== null) throw new Error(`Core exited with ${core.exitCode}; see ${logFile}`);
    if (Date.now() > deadline) throw new Error(`Core did not become ready within 90 s; see ${logFile}`);
    const ready = await fetch(`${coreUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 300));
  }

  const admin = await call<{ access_token: string }>(coreUrl, 'POST', '/api/v1/auth/login', E2E.tempAdmin);
  for (const user of [E2E.admin, E2E.readonly]) {
    await call(
      coreUrl,
      'POST',
      '/api/v1/users',
      { email: user.username, password: user.password, role: user.role, name: user.name },
      admin.access_token,
    );
  }
  await call(
    coreUrl,
    'PUT',
    `/api/v1/secrets/${E2E.secret.name}`,
    { value: E2E.secret.value, description: 'Registry password' },
    admin.access_token,
  );

  process.env.CORE_E2E_URL = coreUrl;
  process.env.CORE_E2E_OIDC_ISSUER = oidc.issuer;

  return async () => {
    try {
      process.kill(-core.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await new Promise((r) => (core.exitCode !== null ? r(undefined) : core.once('exit', r)));
    await oidc.close();
    fs.closeSync(log);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
