/**
 * A real container engine for Core's engine tests (and the runtime bench), with no registry: CORE_TEST_ENGINE
 * names it. `podman`: the fixture runs Debian's podman's Docker-compatible service on a socket of its own
 * (`podman system service --time=0 unix://<tmp>/podman.sock`, rootful); any other value is a DOCKER_HOST URL
 * of an engine already running (unix:///path.sock or tcp://host:port, with DOCKER_TLS_VERIFY/DOCKER_CERT_PATH).
 *
 * The test image is built here: a tar of Debian's static busybox (package busybox-static) plus symlinks and a
 * few CGI scripts, imported through the engine API as localhost/core-test-app:1 and :2. Its default command
 * serves on APP_PORT:
 *   GET /                      "core-test-app <version>"
 *   GET /cgi-bin/env           the container process's environment (PID 1's, NUL-separated): readEnv()
 *   GET /cgi-bin/secrets       each file under /run/secrets: "<name> <mode in octal> <base64 content>": readSecrets()
 *   GET /cgi-bin/file?<path>   a file's content (404 when absent)
 *   POST /cgi-bin/write?<path> writes the request body to the file (a volume's persistence)
 *   GET /cgi-bin/exit?<code>   the container exits with that code (a crash)
 * SIGTERM stops it at once (its shell traps it: PID 1 would otherwise ignore it until the engine's kill).
 *
 * The engine's store is machine-wide (rootful podman), shared with other runs: what a test creates itself carries
 * runLabel() (its file and the run), Core's containers and volumes carry Core's instance label; each is removed by
 * label (removeByLabel). The run's teardown removes what is left of the run and the images no run uses. This module
 * imports no vitest so that the bench can use it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import tar from 'tar-stream';

/** `podman`, or a DOCKER_HOST URL; unset: no engine tests (vitest.config.ts). */
export const ENGINE_SETTING = process.env.CORE_TEST_ENGINE;
/** Label key on every container and volume a test creates itself (runLabel); the value names the creator. */
export const TEST_LABEL = 'io.core-test';
/** Label key naming the test run (the engine global setup's id) on the same: its teardown removes them. */
export const RUN_LABEL = 'io.core-test.run';
export const RUN_ID = (process.env.CORE_TEST_RUN_ID ??= `${process.pid}-${randomBytes(4).toString('hex')}`);
/**
 * The test images' label (value: their content hash). A container inherits its image's labels, so this key is
 * never used to find containers: another run's containers from the same image carry it too.
 */
export const IMAGE_LABEL = 'io.core-test.image';
export const APP_REPO = 'localhost/core-test-app';
export const APP_IMAGE_1 = `${APP_REPO}:1`;
export const APP_IMAGE_2 = `${APP_REPO}:2`;
/** The port the test image serves on (its PORT variable changes it). */
export const APP_PORT = 8080;
/**
 * What CORE_CONTAINER_ULIMITS Core gets in the engine tests: this sandbox refuses the engines' default open-files
 * and process limits, so containers start only with explicit ones (docs/core-runtime.md).
 */
export const ULIMITS_TEXT = process.env.CORE_CONTAINER_ULIMITS || 'nofile=1024:1024,nproc=1024:1024';

/** ULIMITS_TEXT as the engine API's HostConfig.Ulimits (for containers a test creates itself). */
export function hostUlimits(text = ULIMITS_TEXT): { Name: string; Soft: number; Hard: number }[] {
  return text
    .split(',')
    .filter(Boolean)
    .map((item) => {
      const m = /^(\w+)=(\d+)(?::(\d+))?$/.exec(item.trim());
      if (!m) throw new Error(`ulimits: ${item} is not name=soft:hard`);
      return { Name: m[1]!, Soft: Number(m[2]), Hard: Number(m[3] ?? m[2]) };
    });
}

export interface TestEngine {
  /** The DOCKER_HOST to give Core (unix:///…). */
  dockerHost: string;
  docker: Docker;
  /** Makes the engine unreachable (podman: its service stops; its containers keep running, as conmon owns them). */
  stop(): Promise<void>;
  /** Brings it back on the same DOCKER_HOST. */
  start(): Promise<void>;
  /** Stops what the fixture started (the engine's containers are the caller's: removeByLabel). */
  close(): Promise<void>;
}

/**
 * The run's shared engine: the one the engine global setup started (CORE_TEST_DOCKER_HOST), else a new one as
 * startEngine() makes; with the test images. Its stop() is not for tests sharing it: a test that stops the engine
 * takes startEngine().
 */
export async function sharedEngine(): Promise<TestEngine> {
  const shared = process.env.CORE_TEST_DOCKER_HOST;
  if (!shared) return startEngine();
  const docker = dockerFor(shared);
  // Again per file: a test run ending elsewhere on this machine may have removed them meanwhile (when unused).
  await ensureTestImages(docker);
  const refuse = async () => {
    throw new Error('the shared engine is not stopped by one test file: use startEngine()');
  };
  return { dockerHost: shared, docker, stop: refuse, start: refuse, close: async () => {} };
}

/**
 * An engine endpoint this caller may stop and start: with `podman`, a podman service of its own (on the same
 * machine-wide store); with a DOCKER_HOST URL, a socket proxy to that engine which stop() closes.
 */
export async function startEngine(setting = ENGINE_SETTING): Promise<TestEngine> {
  if (!setting) throw new Error('CORE_TEST_ENGINE is not set (podman, or a DOCKER_HOST URL)');
  const engine = setting === 'podman' ? await startPodman() : await proxyEngine(setting);
  await ensureTestImages(engine.docker);
  return engine;
}

/** Podman's runtime: runc where installed, as crun refuses hybrid cgroup hierarchies (v1 + a v2 mount with a controller). */
function podmanRuntime(): string | null {
  if (process.env.CORE_TEST_PODMAN_RUNTIME) return process.env.CORE_TEST_PODMAN_RUNTIME;
  return ['/usr/sbin/runc', '/usr/bin/runc', '/usr/local/sbin/runc'].some((p) => fs.existsSync(p)) ? 'runc' : null;
}

async function startPodman(): Promise<TestEngine> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-podman-'));
  const socket = path.join(dir, 'podman.sock');
  const dockerHost = `unix://${socket}`;
  const runtime = podmanRuntime();
  let child: ChildProcess | null = null;
  const kill = () => {
    if (child?.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  };
  // A test worker that dies must not leave the service behind.
  process.once('exit', kill);

  const start = async () => {
    // Already running: a second service on the same socket would orphan the first.
    if (child?.pid && child.exitCode === null && child.signalCode === null) return;
    fs.rmSync(socket, { force: true });
    const log = fs.openSync(path.join(dir, 'podman.log'), 'a');
    const args = [...(runtime ? ['--runtime', runtime] : []), 'system', 'service', '--time=0', dockerHost];
    // In the service's own folder: conmon writes an empty `oom` file into its working directory.
    const proc = spawn('podman', args, { cwd: dir, detached: true, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    child = proc;
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) => reject(new Error(`podman system service exited (${code}): ${tail(dir)}`))),
    );
    exited.catch(() => {});
    await Promise.race([
      waitFor(() => dockerFor(dockerHost).ping(), { timeoutMs: 30_000, what: 'podman service' }),
      exited,
    ]);
  };
  const stop = async () => {
    const proc = child;
    if (!proc?.pid || proc.exitCode !== null) return;
    const gone = new Promise((resolve) => proc.once('exit', resolve));
    process.kill(-proc.pid, 'SIGTERM');
    const timer = setTimeout(kill, 10_000);
    await gone;
    clearTimeout(timer);
    fs.rmSync(socket, { force: true });
  };

  await start();
  return {
    dockerHost,
    docker: dockerFor(dockerHost),
    stop,
    start,
    async close() {
      await stop();
      process.removeListener('exit', kill);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function tail(dir: string) {
  try {
    return fs.readFileSync(path.join(dir, 'podman.log'), 'utf8').slice(-2000);
  } catch {
    return '';
  }
}

/** A unix socket forwarding to the engine at `target`; stop() closes it and cuts every open connection. */
async function proxyEngine(target: string): Promise<TestEngine> {
  const upstream = dockerFor(target);
  await upstream.ping();
  const modem = upstream.modem as unknown as { socketPath?: string; host?: string; port?: number };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-engine-'));
  const socket = path.join(dir, 'engine.sock');
  const open = new Set<net.Socket>();
  let server: net.Server | null = null;
  const start = async () => {
    fs.rmSync(socket, { force: true });
    server = net.createServer((client) => {
      const up = modem.socketPath
        ? net.connect(modem.socketPath)
        : net.connect({ host: modem.host!, port: Number(modem.port) });
      open.add(client).add(up);
      for (const s of [client, up]) s.once('close', () => open.delete(s)).on('error', () => {});
      client.pipe(up).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(socket, resolve));
  };
  const stop = async () => {
    if (!server) return;
    const s = server;
    server = null;
    for (const sock of open) sock.destroy();
    await new Promise((resolve) => s.close(resolve));
  };
  await start();
  const dockerHost = `unix://${socket}`;
  return {
    dockerHost,
    docker: dockerFor(dockerHost),
    stop,
    start,
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A dockerode client for a DOCKER_HOST URL (TLS from DOCKER_TLS_VERIFY/DOCKER_CERT_PATH, as Docker's CLI). */
export function dockerFor(dockerHost: string): Docker {
  const url = new URL(dockerHost);
  if (url.protocol === 'unix:') return new Docker({ socketPath: url.pathname });
  const tls = !!process.env.DOCKER_TLS_VERIFY && process.env.DOCKER_TLS_VERIFY !== '0';
  const certs = process.env.DOCKER_CERT_PATH ?? path.join(os.homedir(), '.docker');
  return new Docker({
    host: url.hostname,
    port: Number(url.port || (tls ? 2376 : 2375)),
    protocol: tls ? 'https' : 'http',
    ...(tls && {
      ca: fs.readFileSync(path.join(certs, 'ca.pem')),
      cert: fs.readFileSync(path.join(certs, 'cert.pem')),
      key: fs.readFileSync(path.join(certs, 'key.pem')),
    }),
  });
}

// --- the test image -------------------------------------------------------------------------------------

const BUSYBOX = process.env.CORE_TEST_BUSYBOX ?? '/bin/busybox';
const APPLETS = [
  'sh',
  'httpd',
  'env',
  'stat',
  'cat',
  'ls',
  'sleep',
  'kill',
  'base64',
  'head',
  'mkdir',
  'rm',
  'id',
  'nc',
];
const cgi = (body: string) => `#!/bin/sh\n${body}\n`;
const textHeader = 'printf "Content-Type: text/plain\\r\\n\\r\\n"';
const SCRIPTS: Record<string, string> = {
  // PID 1's environment: what the engine gave the process (the CGI's own has httpd's variables added).
  env: cgi(`printf "Content-Type: application/octet-stream\\r\\n\\r\\n"\ncat /proc/1/environ`),
  secrets: cgi(
    `${textHeader}\nfor f in /run/secrets/*; do\n  [ -f "$f" ] || continue\n` +
      `  echo "\${f##*/} $(stat -c %a "$f") $(base64 -w 0 < "$f")"\ndone`,
  ),
  file: cgi(
    `p=$(httpd -d "$QUERY_STRING")\nif [ -f "$p" ]; then ${textHeader}; cat "$p"; ` +
      `else printf "Status: 404 Not Found\\r\\nContent-Type: text/plain\\r\\n\\r\\nno such file\\n"; fi`,
  ),
  write: cgi(`p=$(httpd -d "$QUERY_STRING")\nhead -c "\${CONTENT_LENGTH:-0}" > "$p"\n${textHeader}\necho written`),
  exit: cgi(`echo "\${QUERY_STRING:-1}" > /tmp/exit-code\n${textHeader}\necho exiting\nkill -USR1 1`),
};
// PID 1: httpd in the background, so that TERM (stop) and USR1 (/cgi-bin/exit) end the container at once.
const START = cgi(
  `trap 'exit 0' TERM INT\ntrap 'exit $(cat /tmp/exit-code)' USR1\n` +
    `httpd -f -p "\${PORT:-${APP_PORT}}" -h /www &\nwait $!`,
);

function imageTar(version: number): tar.Pack {
  const pack = tar.pack();
  const dir = (name: string, mode = 0o755) => pack.entry({ name, type: 'directory', mode });
  dir('bin/');
  pack.entry({ name: 'bin/busybox', mode: 0o755 }, fs.readFileSync(BUSYBOX));
  for (const applet of APPLETS) pack.entry({ name: `bin/${applet}`, type: 'symlink', linkname: 'busybox' });
  for (const d of ['proc/', 'dev/', 'sys/', 'etc/', 'run/', 'data/']) dir(d);
  dir('tmp/', 0o1777);
  pack.entry({ name: 'start', mode: 0o755 }, START);
  dir('www/');
  pack.entry({ name: 'www/index.html', mode: 0o644 }, `core-test-app ${version}\n`);
  dir('www/cgi-bin/');
  for (const [name, body] of Object.entries(SCRIPTS)) pack.entry({ name: `www/cgi-bin/${name}`, mode: 0o755 }, body);
  pack.finalize();
  return pack;
}

/** Changes when anything the image holds changes: an image carrying another hash is imported again. */
function contentHash(): string {
  return createHash('sha256')
    .update(fs.readFileSync(BUSYBOX))
    .update(JSON.stringify({ APPLETS, SCRIPTS, START }))
    .digest('hex')
    .slice(0, 16);
}

/**
 * Imports localhost/core-test-app:1 and :2 unless the engine has them with this content (no registry: the
 * engine API's import of a local tar). Returns their names.
 */
export async function ensureTestImages(docker: Docker): Promise<string[]> {
  const hash = contentHash();
  for (const version of [1, 2]) {
    const name = `${APP_REPO}:${version}`;
    const existing = await docker
      .getImage(name)
      .inspect()
      .catch(() => null);
    if (existing?.Config?.Labels?.[IMAGE_LABEL] === hash) continue;
    // tar-stream's pack is a streamx Readable: Node pipes it, the types do not say so.
    const source = imageTar(version) as unknown as NodeJS.ReadableStream;
    const options = {
      // Podman's import ignores `tag`: the tag rides in `repo`.
      repo: name,
      changes: [
        'CMD ["/start"]',
        'ENV PATH=/bin',
        `ENV APP_VERSION=${version}`,
        `EXPOSE ${APP_PORT}/tcp`,
        `LABEL ${IMAGE_LABEL}=${hash}`,
      ],
    };
    const stream = await docker.importImage(source, options);
    await new Promise((resolve, reject) =>
      docker.modem.followProgress(stream, (err, out) => (err ? reject(err) : resolve(out))),
    );
    const imported = await docker.getImage(name).inspect();
    if (imported.Config?.Labels?.[IMAGE_LABEL] !== hash) throw new Error(`import of ${name} did not tag it`);
  }
  return [APP_IMAGE_1, APP_IMAGE_2];
}

// --- what the container serves back ---------------------------------------------------------------------

/** The environment of the app's process, as served by GET /cgi-bin/env. */
export async function readEnv(baseUrl: string): Promise<Record<string, string>> {
  const res = await fetch(`${baseUrl}/cgi-bin/env`);
  if (!res.ok) throw new Error(`GET /cgi-bin/env: ${res.status}`);
  const env: Record<string, string> = {};
  for (const entry of (await res.text()).split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

/** The files under /run/secrets in the container: name → mode (octal text, e.g. "400") and content. */
export async function readSecrets(baseUrl: string): Promise<Record<string, { mode: string; content: string }>> {
  const res = await fetch(`${baseUrl}/cgi-bin/secrets`);
  if (!res.ok) throw new Error(`GET /cgi-bin/secrets: ${res.status}`);
  const files: Record<string, { mode: string; content: string }> = {};
  for (const line of (await res.text()).split('\n').filter(Boolean)) {
    const [name, mode, b64 = ''] = line.split(' ');
    files[name!] = { mode: mode!, content: Buffer.from(b64, 'base64').toString('utf8') };
  }
  return files;
}

// --- helpers ---------------------------------------------------------------------------------------------

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Calls fn until it resolves (returning its value) or the time is up (throwing its last error). */
export async function waitFor<T>(
  fn: () => Promise<T> | T,
  { timeoutMs = 30_000, intervalMs = 100, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`${what} not reached in ${timeoutMs} ms: ${(err as Error).message}`, { cause: err });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits until `url` answers 2xx and returns its body (a container's server takes a moment after start). */
export function waitUntilAnswers(url: string, { timeoutMs = 30_000 } = {}): Promise<string> {
  return waitFor(
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (!res.ok) throw new Error(`${url} answered ${res.status}`);
      return res.text();
    },
    { timeoutMs, what: `an answer from ${url}` },
  );
}

const labelFilter = (labels: Record<string, string>) =>
  JSON.stringify({ label: Object.entries(labels).map(([k, v]) => (v === '' ? k : `${k}=${v}`)) });

/**
 * Removes every container (running or not) and volume carrying all these labels (a value of '' matches any).
 * Returns how many of each went.
 */
export async function removeByLabel(
  docker: Docker,
  labels: Record<string, string>,
): Promise<{ containers: number; volumes: number }> {
  if (Object.keys(labels).length === 0) throw new Error('removeByLabel needs a label (the store is machine-wide)');
  const filters = labelFilter(labels);
  const containers = await docker.listContainers({ all: true, filters });
  await Promise.all(containers.map((c) => removeContainer(docker, c.Id)));
  const { Volumes } = await docker.listVolumes({ filters });
  await Promise.all((Volumes ?? []).map((v) => docker.getVolume(v.Name).remove().catch(gone)));
  return { containers: containers.length, volumes: (Volumes ?? []).length };
}

/**
 * Removes the test images, except those in use: never forced, as another run on this machine may be using them
 * (a forced removal takes its containers too). Returns how many went.
 */
export async function removeTestImages(docker: Docker): Promise<number> {
  let removed = 0;
  for (const image of await docker.listImages({ filters: labelFilter({ [IMAGE_LABEL]: '' }) }))
    await docker
      .getImage(image.Id)
      .remove()
      .then(() => removed++, goneOrInUse);
  return removed;
}

/**
 * A forced removal, retried for a while: Podman refuses one while the container is between exiting and its restart
 * or clean-up (HTTP 500 "could not be stopped … container state improper: stopped"); a later attempt succeeds.
 */
function removeContainer(docker: Docker, id: string): Promise<void> {
  return waitFor(() => docker.getContainer(id).remove({ force: true, v: true }).catch(gone), {
    timeoutMs: 15_000,
    intervalMs: 250,
    what: `container ${id.slice(0, 12)} removed`,
  });
}

function gone(err: { statusCode?: number }) {
  if (err.statusCode !== 404) throw err;
}

function goneOrInUse(err: { statusCode?: number }) {
  if (err.statusCode !== 404 && err.statusCode !== 409) throw err;
}

/** Labels for what one caller (a test file) creates itself: its removeByLabel names them, the run's teardown too. */
export function runLabel(prefix = 'test'): Record<string, string> {
  return { [TEST_LABEL]: `${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`, [RUN_LABEL]: RUN_ID };
}

/** True when the podman CLI is present (the global setup reports a missing one clearly). */
export function hasPodman(): boolean {
  return spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0;
}
