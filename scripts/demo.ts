/**
 * `npm run demo`: the whole system on one machine, wired together, on embedded databases.
 *   - the Hub (`npm start`: production server + the development OpenID provider), seeded with the demo
 *     catalog, an organization "Demo" and an instance key;
 *   - Core (`npm run core -- serve`) connected to that Hub with the key (through its settings API) and synced;
 *   - a Core admin user and, at the Hub, a personal access token for the same person bound to the instance;
 *   - when Core drives a container engine (DOCKER_HOST, or the engine's default socket): one catalog template
 *     deployed and followed until it runs (its URL printed) or gives up (its reason printed); without one, a line
 *     on how to enable it (scripts/demo-deploy.ts, docs/core-runtime.md);
 *   - it prints the URLs, the sign-in details and a ready MCP client configuration. Ctrl-C stops both.
 * Data lives in ./.demo-data and is kept between runs, so the printed MCP configuration stays valid after a restart
 * (`npm run demo -- --fresh` wipes it and starts over). Ports: DEMO_HUB_PORT (3000; its OpenID provider takes
 * the next one) and DEMO_CORE_PORT (4000). `npm run demo -- --check` stops both once everything is shown to
 * work (CI runs it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { deployDemoTemplate, type DeployOutcome } from './demo-deploy';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const DATA = path.join(ROOT, '.demo-data');
const HUB_PORT = Number(process.env.DEMO_HUB_PORT ?? 3000);
const CORE_PORT = Number(process.env.DEMO_CORE_PORT ?? 4000);
const HUB_URL = `http://localhost:${HUB_PORT}`;
const CORE_URL = `http://localhost:${CORE_PORT}`;
const PERSON = { email: 'demo@example.com', name: 'Demo Admin', password: 'demo-admin-password' };
/** What a later run needs to reuse the first one's setup (the instance key and the assistant's token). */
const STATE = path.join(DATA, 'demo-state.json');
interface DemoState {
  orgSlug: string;
  keyId: string;
  keyPrefix: string;
  patToken: string;
}

const children: ChildProcess[] = [];
const say = (line: string) => console.log(`[demo] ${line}`);

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const k of Object.keys(base))
    if (/^(CORE_|SVC_TEMP_ADMIN|HUB_|DATABASE_URL|OIDC_|PORT$)/.test(k)) delete base[k];
  return { ...base, ...extra };
}

const hubEnv = env({
  HUB_DATA_DIR: path.join(DATA, 'hub'),
  HUB_URL,
  PORT: String(HUB_PORT),
  HUB_ALLOW_PRIVATE_UPSTREAMS: 'true',
  HUB_SUPERADMIN_EMAILS: PERSON.email,
});
const coreEnv = env({
  CORE_DATA_DIR: path.join(DATA, 'core'),
  CORE_PORT: String(CORE_PORT),
  CORE_URL,
  CORE_HUB_SYNC_INTERVAL: '30',
  // The engine settings are the caller's to give (DOCKER_* pass through as they are).
  ...Object.fromEntries(
    ['CORE_RUNTIME', 'CORE_CONTAINER_ULIMITS', 'CORE_PUBLISH_ADDRESS', 'CORE_NODE_LABELS']
      .filter((k) => process.env[k] !== undefined)
      .map((k) => [k, process.env[k]!]),
  ),
});

/** A CLI step (JSON or a line on stdout); the embedded databases allow one process at a time, so these run first. */
function run(args: string[], childEnv: NodeJS.ProcessEnv, input = ''): string {
  const r = spawnSync(TSX, args, { cwd: ROOT, env: childEnv, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout.trim();
}

function start(name: string, command: string, args: string[], childEnv: NodeJS.ProcessEnv) {
  const logPath = path.join(DATA, `${name}.log`);
  const log = fs.openSync(logPath, 'a');
  // Own process group: Ctrl-C ends npm, tsx, the servers and the Hub's OpenID provider together.
  const child = spawn(command, args, { cwd: ROOT, env: childEnv, detached: true, stdio: ['ignore', log, log] });
  children.push(child);
  child.once('exit', (code) => {
    if (!stopping) {
      console.error(`[demo] ${name} exited (${code}); its log: ${logPath}`);
      void stop(1);
    }
  });
  return logPath;
}

async function waitFor(what: string, url: string, logPath: string, ms = 600_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} did not answer at ${url}; see ${logPath}`);
}

async function json(base: string, p: string, token: string, method = 'GET', body?: unknown) {
  const res = await fetch(base + p, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${base}${p} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping the Hub and Core…');
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          try {
            process.kill(-child.pid!, 'SIGTERM');
          } catch {
            resolve();
          }
        }),
    ),
  );
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

function readState(): DemoState | null {
  try {
    return JSON.parse(fs.readFileSync(STATE, 'utf8')) as DemoState;
  } catch {
    return null;
  }
}

async function main() {
  const fresh = process.argv.includes('--fresh');
  if (fresh) fs.rmSync(DATA, { recursive: true, force: true });
  let state = readState();
  if (!state && fs.existsSync(DATA)) {
    // An earlier run stopped before it finished its setup: start over.
    fs.rmSync(DATA, { recursive: true, force: true });
  }
  fs.mkdirSync(DATA, { recursive: true, mode: 0o700 });
  say(state ? `reusing ${DATA} (npm run demo -- --fresh starts over)` : `new demo data in ${DATA}`);

  if (!fs.existsSync(path.join(ROOT, '.next/BUILD_ID'))) {
    say('building the Hub once (next build; a few minutes)…');
    const hasFlock = spawnSync('flock', ['--version']).status === 0;
    const build = hasFlock
      ? spawnSync('flock', ['/tmp/hub-build.lock', 'npx', 'next', 'build'], {
          cwd: ROOT,
          stdio: 'inherit',
          env: env({}),
        })
      : spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit', env: env({}) });
    if (build.status !== 0) throw new Error('next build failed');
  }

  if (!state) {
    say('preparing the Hub: demo catalog and the demo person…');
    run(['server/cli.ts', 'seed'], hubEnv);
    run(
      ['server/cli.ts', 'user', 'create', '--email', PERSON.email, '--name', PERSON.name, '--role', 'superadmin'],
      hubEnv,
    );
    say('preparing Core: the admin user…');
    run(
      ['core/src/cli.ts', 'user', 'create', '--email', PERSON.email, '--name', PERSON.name, '--role', 'admin'],
      coreEnv,
      PERSON.password,
    );
  }
  const hubJwt = run(['server/cli.ts', 'token', '--email', PERSON.email, '--ttl', '3600'], hubEnv);

  const hubLog = start('hub', 'npm', ['start'], hubEnv);
  await waitFor('the Hub', `${HUB_URL}/api/v1/catalog/templates?limit=1`, hubLog);
  const coreLog = start('core', TSX, ['core/src/cli.ts', 'serve'], coreEnv);
  await waitFor('Core', `${CORE_URL}/readyz`, coreLog, 180_000);
  const login = await json(CORE_URL, '/api/v1/auth/login', '', 'POST', {
    username: PERSON.email,
    password: PERSON.password,
  });
  if (!state) {
    const { organization } = await json(HUB_URL, '/api/v1/account/organizations', hubJwt, 'POST', {
      name: 'Demo',
      slug: 'demo',
    });
    const { apiKey } = await json(HUB_URL, '/api/v1/account/api-keys', hubJwt, 'POST', { name: 'demo core' });
    await json(CORE_URL, '/api/v1/settings/hub', login.access_token, 'PUT', {
      hub_url: HUB_URL,
      instance_key: apiKey.key,
    });
    const { token } = await json(HUB_URL, '/api/v1/account/tokens', hubJwt, 'POST', {
      name: 'demo assistant',
      instance_id: apiKey.id,
      expires_in_days: 365,
    });
    state = { orgSlug: organization.slug, keyId: apiKey.id, keyPrefix: apiKey.key_prefix, patToken: token.token };
    // Only this demo's own secrets, readable by this user only.
    fs.writeFileSync(STATE, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  }
  say(`Hub ready: organization ${state.orgSlug}, instance key ${state.keyPrefix}… (id ${state.keyId})`);
  const synced = await json(CORE_URL, '/api/v1/catalog/sync', login.access_token, 'POST');
  const { pagination } = await json(CORE_URL, '/api/v1/catalog/templates?limit=1', login.access_token);
  // Who sees how many: everyone the public ones; the private category's templates need a grant (or the admin role).
  const publicTotal = (await json(HUB_URL, '/api/v1/catalog/templates?limit=1', '')).pagination.total as number;
  const allTotal = (await json(HUB_URL, '/api/v1/admin/templates?limit=1', hubJwt)).pagination.total as number;
  say(
    // A second demo's sync finds nothing new: its checked_at is the earlier watermark, not the time of this sync.
    `Core connected and synced just now (${
      synced.added + synced.updated + synced.removed === 0
        ? `already up to date: nothing changed on the Hub since ${synced.checked_at}`
        : `${synced.added} added, ${synced.updated} updated, ${synced.removed} removed`
    }): it sees ${pagination.total} templates with its instance key.`,
  );
  say(
    `The Hub holds ${allTotal} templates: ${publicTotal} public (what anyone and an instance without grants see) and ` +
      `${allTotal - publicTotal} in private categories, shown only to organizations granted access (Admin → Organizations) and to Hub admins.`,
  );
  const token = { token: state.patToken };

  // On an engine: one template deployed (a pull may take minutes; --check waits less and never fails on it).
  const deployed: DeployOutcome = await deployDemoTemplate({
    coreUrl: CORE_URL,
    token: login.access_token,
    say,
    waitMs: Number(process.env.DEMO_DEPLOY_WAIT_SECONDS ?? (process.argv.includes('--check') ? 90 : 600)) * 1000,
  });
  const deployLine =
    deployed.kind === 'no_engine'
      ? deployed.line
      : deployed.kind === 'running'
        ? `"${deployed.deployment.name}" runs${deployed.url ? ` at ${deployed.url}` : ' (it publishes no port)'}; ` +
          `its page: ${CORE_URL}/deployments/${deployed.deployment.id}`
        : `"${deployed.deployment.name}" is not running: ${deployed.reason} (its page: ${CORE_URL}/deployments/${deployed.deployment.id})`;

  // The loop, once, as an assistant would use it.
  const client = new Client({ name: 'demo-check', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${HUB_URL}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token.token}` } },
    }),
  );
  const tools = (await client.listTools()).tools.map((t) => t.name);
  await client.close();

  const mcpConfig = {
    mcpServers: {
      'core-via-hub': { type: 'http', url: `${HUB_URL}/mcp`, headers: { Authorization: `Bearer ${token.token}` } },
    },
  };
  console.log(`
────────────────────────────────────────────────────────────────────────
 Hub   ${HUB_URL}     sign in with any email through the development provider;
                              ${PERSON.email} is the Hub superadmin and admin of "Demo"
 Core  ${CORE_URL}     sign in as ${PERSON.email} / ${PERSON.password} (admin)

 Deployment: ${deployLine}

 MCP through the Hub: ${HUB_URL}/mcp  (checked: ${tools.length} tools — ${tools.join(', ')})
 Client configuration (personal access token for ${PERSON.email}, bound to the instance):

${JSON.stringify(mcpConfig, null, 2)}

 Logs: ${DATA}/hub.log, ${DATA}/core.log          Ctrl-C stops both.
────────────────────────────────────────────────────────────────────────`);
  if (process.argv.includes('--check')) await stop(0);
}

main().catch(async (err: unknown) => {
  console.error(`[demo] ${err instanceof Error ? err.message : String(err)}`);
  await stop(1);
});
