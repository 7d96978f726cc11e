/**
 * A real PowerDNS Authoritative server for tests: pdns_server on 127.0.0.1 with a throwaway config
 * directory and sqlite3 backend, API enabled. Needs the Debian packages pdns-server,
 * pdns-backend-sqlite3 and sqlite3; when they are missing, start() fails with the command to install them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

const INSTALL = 'apt-get install -y pdns-server pdns-backend-sqlite3 sqlite3 dnsutils';
const SCHEMAS = [
  '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql',
  '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql',
];

function which(cmd: string): string | null {
  for (const dir of ['/usr/sbin', '/usr/bin', '/sbin', '/bin', ...(process.env.PATH ?? '').split(':')]) {
    const p = path.join(dir, cmd);
    if (existsSync(p)) return p;
  }
  return null;
}

async function tcpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer().once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4').once('error', () => resolve(false));
    s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function freePort(udpToo: boolean): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    if ((await tcpFree(port)) && (!udpToo || (await udpFree(port)))) return port;
  }
  throw new Error('no free port found');
}

export interface PdnsServer {
  apiUrl: string;
  apiKey: string;
  dnsPort: number;
  /** PATCH/POST/GET against the server's API (for test set-up, not for the code under test). */
  request(method: string, apiPath: string, body?: unknown): Promise<Response>;
  createZone(zone: string): Promise<void>;
  stop(): Promise<void>;
  log(): string;
}

export async function startPdns(): Promise<PdnsServer> {
  const pdns = which('pdns_server');
  const sqlite = which('sqlite3');
  const schema = SCHEMAS.find((p) => existsSync(p));
  if (!pdns || !sqlite || !schema) {
    const missing = [!pdns && 'pdns_server', !sqlite && 'sqlite3', !schema && 'the gsqlite3 schema'].filter(Boolean);
    throw new Error(
      `The PowerDNS test needs a real pdns_server with the sqlite3 backend (missing: ${missing.join(', ')}). ` +
        `Install it: ${INSTALL}`,
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'hub-pdns-'));
  const db = path.join(dir, 'pdns.sqlite3');
  const init = spawnSync(sqlite, [db], { input: readFileSync(schema), encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`sqlite3 could not create the PowerDNS database: ${init.stderr}`);
  const dnsPort = await freePort(true);
  const apiPort = await freePort(false);
  const apiKey = randomBytes(16).toString('hex');
  writeFileSync(
    path.join(dir, 'pdns.conf'),
    [
      'launch=gsqlite3',
      `gsqlite3-database=${db}`,
      'local-address=127.0.0.1',
      `local-port=${dnsPort}`,
      'api=yes',
      `api-key=${apiKey}`,
      'webserver=yes',
      'webserver-address=127.0.0.1',
      `webserver-port=${apiPort}`,
      'webserver-allow-from=127.0.0.0/8',
      `socket-dir=${dir}`,
      'daemon=no',
      'guardian=no',
      'loglevel=4',
      '',
    ].join('\n'),
  );
  let output = '';
  const child: ChildProcess = spawn(pdns, [`--config-dir=${dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const request = (method: string, apiPath: string, body?: unknown) =>
    fetch(`${apiUrl}/api/v1${apiPath}`, {
      method,
      headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pdns_server exited (${child.exitCode}):\n${output}`);
    try {
      if ((await request('GET', '/servers/localhost')).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`pdns_server did not start within 15 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    apiUrl,
    apiKey,
    dnsPort,
    request,
    async createZone(zone: string) {
      const res = await request('POST', '/servers/localhost/zones', {
        name: `${zone}.`,
        kind: 'Native',
        nameservers: [`ns1.${zone}.`],
      });
      if (res.status !== 201) throw new Error(`creating zone ${zone} failed: ${res.status} ${await res.text()}`);
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => output,
  };
}
