/**
 * Real processes for the Core ↔ Hub loop tests: a Hub (tests/fixtures/hub-process.ts: the real REST
 * handler, /mcp proxy and JWKS) and a Core (`core/src/cli.ts serve`), each on its own database and each as
 * compiled JavaScript (tests/compiled.ts) —
 * PostgreSQL when the suite runs with DATABASE_URL (a fresh database each), embedded PGlite otherwise
 * (a temporary data directory each). Both listen on free loopback ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freePort } from '../../bench/processes';
import { node, type CompiledName } from '../compiled';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** tests/setup.ts has already pointed DATABASE_URL at a fresh database for this file (PostgreSQL runs). */
const PG = process.env.DATABASE_URL;

export { freePort };

export interface Proc {
  url: string;
  output: string[];
  stop(): Promise<void>;
}

/** The test process's environment without Core's or the Hub's own settings (each child gets exactly its own). */
function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^(CORE_|SVC_TEMP_ADMIN|HUB_|DATABASE_URL)/.test(k)) delete env[k];
  return env;
}

function launch(
  [name, ...args]: [CompiledName, ...string[]],
  env: Record<string, string>,
  ready: RegExp,
  onLine?: (line: string) => void,
): Promise<Proc & { child: ChildProcess }> {
  const child = spawn(...node(name, ...args), {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s:\n${output.join('\n')}`)), 60_000);
    let buffered = '';
    const onData = (d: Buffer) => {
      buffered += String(d);
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        output.push(line);
        onLine?.(line);
        const m = ready.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve({
            url: m[1]!,
            output,
            child,
            stop: () =>
              new Promise<void>((done) => {
                if (child.exitCode !== null) return done();
                child.once('exit', () => done());
                child.kill('SIGTERM');
              }),
          });
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output.join('\n')}`));
    });
  });
}

async function createPgDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const server = Object.assign(new URL(PG!), { pathname: '/postgres' }).toString();
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  return {
    url: Object.assign(new URL(PG!), { pathname: `/${name}` }).toString(),
    drop: async () => {
      const a = postgres(server, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

export interface HubProc extends Proc {
  port: number;
  /** Hub JWTs of the HUB_FIXTURE_USERS, by email. */
  jwts: Map<string, string>;
}

/** A database for one service (kept across restarts of its process): PostgreSQL or an embedded data directory. */
export interface Store {
  env: Record<string, string>;
  drop(): Promise<void>;
}

async function store(
  prefix: string,
  pgVariable: string,
  dirVariable: string,
  extra: Record<string, string> = {},
): Promise<Store> {
  if (PG) {
    const db = await createPgDatabase(prefix);
    return { env: { [pgVariable]: db.url, ...extra }, drop: db.drop };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return { env: { [dirVariable]: dir, ...extra }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export type HubStore = Store;
export type CoreStore = Store;
export const hubStore = () => store('hub_loop', 'DATABASE_URL', 'HUB_DATA_DIR', { HUB_SECRET: 'loop-test-hub-secret' });
export const coreStore = () => store('core_loop', 'CORE_DATABASE_URL', 'CORE_DATA_DIR');

export async function startHub(
  store: HubStore,
  opts: { port?: number; users?: string[]; seed?: boolean; env?: Record<string, string> } = {},
): Promise<HubProc> {
  const port = opts.port ?? (await freePort());
  const jwts = new Map<string, string>();
  const proc = await launch(
    ['hub-process'],
    {
      ...store.env,
      HUB_FIXTURE_PORT: String(port),
      HUB_URL: `http://127.0.0.1:${port}`,
      HUB_ALLOW_PRIVATE_UPSTREAMS: 'true',
      HUB_FIXTURE_ASSERTIONS: '1',
      HUB_FIXTURE_USERS: (opts.users ?? []).join(','),
      HUB_FIXTURE_SEED: opts.seed ? '1' : '',
      ...opts.env,
    },
    /^LISTENING (\S+)/,
    (line) => {
      const m = /^USER (\S+) (\S+)$/.exec(line);
      if (m) jwts.set(m[1]!, m[2]!);
    },
  );
  return { ...proc, port, jwts };
}

export interface CoreProc extends Proc {
  port: number;
}

export const TEMP_ADMIN = { username: 'setup-admin', password: 'temporary-admin-password' };

export async function startCore(store: CoreStore, env: Record<string, string> = {}): Promise<CoreProc> {
  const port = await freePort();
  const proc = await launch(
    ['core', 'serve'],
    {
      ...store.env,
      CORE_PORT: String(port),
      CORE_HOST: '127.0.0.1',
      CORE_URL: `http://127.0.0.1:${port}`,
      CORE_SECRET: 'loop-test-core-secret',
      CORE_LOG_LEVEL: 'info',
      SVC_TEMP_ADMIN_USERNAME: TEMP_ADMIN.username,
      SVC_TEMP_ADMIN_PASSWORD: TEMP_ADMIN.password,
      ...env,
    },
    /"url":"([^"]+)"[^\n]*"msg":"Core listening"/,
  );
  return { ...proc, port };
}

/**
 * A reverse proxy in front of a Hub, as in production: it forwards every request and appends the client's
 * address (here a fixed public one, as if the client came from the internet) to X-Forwarded-For.
 */
export async function reverseProxy(
  target: () => string,
  clientAddress: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      new URL(req.url ?? '/', target()),
      { method: req.method, headers: { ...req.headers, 'x-forwarded-for': clientAddress } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // The Hub is down: the connection is dropped, so the client sees the Hub as unreachable.
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** JSON over HTTP. */
export async function call(
  base: string,
  p: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(base + p, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  ms = 30_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
