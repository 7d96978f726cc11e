/**
 * Starts everything the journeys need and returns the teardown:
 *  - the production build (built when missing or older than the sources; E2E_BUILD=always|never),
 *  - a fresh PostgreSQL database, dropped afterwards,
 *  - the development OpenID provider (oidc-provider) on 127.0.0.1:E2E_PORT+1,
 *  - the production server of `npm start` (server/http/serve.ts) on 127.0.0.1:E2E_PORT with that database and provider.
 */
import { serveCommand } from '../scripts/serve-command.mjs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { startDevOidcProvider } from '../server/auth/dev-oidc-provider.mjs';

const root = path.resolve(import.meta.dirname, '..');
const nextBin = path.join(root, 'node_modules/next/dist/bin/next');

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

function buildIfNeeded() {
  const buildId = path.join(root, '.next/BUILD_ID');
  const mode = process.env.E2E_BUILD ?? 'auto';
  if (mode === 'never') return;
  const sources = ['app', 'server', 'public', 'next.config.mjs', 'postcss.config.mjs', 'package-lock.json', 'drizzle'];
  const built = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
  const newest = Math.max(...sources.map((s) => newestMtime(path.join(root, s))));
  if (mode !== 'always' && built > newest) return;
  console.log(
    `[e2e] ${built ? 'sources changed since the last build' : 'no production build yet'}: running next build…`,
  );
  const result = spawnSync(process.execPath, [nextBin, 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status})`);
}

async function waitForServer(url: string, server: ChildProcess, logFile: string) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the Hub server exited with ${server.exitCode}; see ${logFile}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the Hub did not answer ${url} within 2 minutes; see ${logFile}`);
}

export default async function globalSetup() {
  const chromium = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(chromium))
    throw new Error(`${chromium} not found: install Debian's chromium package (apt-get install chromium)`);

  const port = Number(process.env.E2E_PORT ?? 3210);
  // "localhost", not 127.0.0.1: Next.js rewrites loopback addresses in request URLs to localhost, so
  // Auth.js builds its callback URL with localhost and the browser must be on the same origin.
  const hubUrl = `http://localhost:${port}`;
  buildIfNeeded();

  const serverUrl = process.env.E2E_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `hub_e2e_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${dbName}`;

  const hubSecret = randomBytes(32).toString('base64url');
  const metricsToken = randomBytes(16).toString('base64url');
  // The demo catalog (32 templates, one private category): realistic pages, pagination, filters.
  const seed = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'server/cli.ts', 'seed'],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl.toString(), HUB_SECRET: hubSecret },
      encoding: 'utf8',
    },
  );
  if (seed.status !== 0) {
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    throw new Error(`seeding the demo catalog failed: ${seed.stderr}`);
  }

  const oidc = await startDevOidcProvider({
    port: port + 1,
    redirectUris: [`${hubUrl}/api/auth/callback/oidc`],
    quiet: true,
  });

  fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
  const logFile = path.join(root, 'test-results/e2e-hub-server.log');
  const log = fs.openSync(logFile, 'w');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...oidc.env,
    NODE_ENV: 'production',
    PORT: String(port),
    HUB_URL: hubUrl,
    DATABASE_URL: dbUrl.toString(),
    HUB_SECRET: hubSecret,
    HUB_METRICS_TOKEN: metricsToken,
    HUB_SUPERADMIN_EMAILS: '',
    // fleet-overview.spec.ts runs a real MCP upstream on 127.0.0.1 for the proxy's traffic.
    HUB_ALLOW_PRIVATE_UPSTREAMS: 'true',
    // Every page of every test comes from 127.0.0.1, and /api/trpc counts against the same limits as REST: the
    // per-address and anonymous budgets of one client would otherwise stop the suite (the limits have tests of their own).
    HUB_RATE_LIMIT_ANONYMOUS: '1000000',
    HUB_RATE_LIMIT_ADDRESS: '1000000',
    HUB_RATE_LIMIT_CREDENTIAL: '1000000',
  };
  delete env.AUTH_URL;
  delete env.AUTH_SECRET;
  // The production server of `npm start` (server/http/serve.ts).
  const [command, args] = serveCommand(root);
  const server = spawn(command, args, {
    cwd: root,
    env: { ...env, PORT: String(port), HOSTNAME: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });

  const teardown = async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => {
        const timer = setTimeout(() => {
          server.kill('SIGKILL');
          r(undefined);
        }, 5000);
        server.once('exit', () => {
          clearTimeout(timer);
          r(undefined);
        });
      });
    }
    await oidc.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
    fs.closeSync(log);
  };

  try {
    await waitForServer(`http://127.0.0.1:${port}/api/v1/catalog/categories`, server, logFile);
  } catch (err) {
    await teardown();
    throw err;
  }
  process.env.E2E_HUB_URL = hubUrl;
  process.env.E2E_METRICS_TOKEN = metricsToken;
  process.env.E2E_RUN = randomBytes(3).toString('hex');
  process.env.E2E_OIDC_ISSUER = oidc.issuer;
  console.log(`[e2e] Hub at ${hubUrl} (database ${dbName}), OIDC provider at ${oidc.issuer}`);
  return teardown;
}
