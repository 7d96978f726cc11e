/**
 * The runtime interface on the Docker Engine API (Docker Engine, Podman's compatible service) through
 * dockerode. Engine errors become RuntimeError with words an admin can act on (image not found, registry
 * refused, port in use, engine unreachable). Secret files go in with PUT /containers/{id}/archive (a tar
 * built with tar-stream) before the container starts: they are never variables.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import Docker from 'dockerode';
import { pack } from 'tar-stream';
import type { RuntimeConfig } from '../config';
import {
  RuntimeError,
  type ContainerSpec,
  type ContainerState,
  type InspectedContainer,
  type ObservedContainer,
  type PullProgress,
  type Runtime,
  type RuntimeEvent,
} from './runtime';

/** Short calls: an engine that stops answering must not hold a reconciler pass forever. */
const CALL_TIMEOUT_MS = 15_000;
/** A pull with no progress for this long is abandoned (a registry that never answers). */
const PULL_STALL_MS = 60_000;

type ModemOptions = Docker.DockerOptions;

/** DOCKER_HOST / DOCKER_TLS_VERIFY / DOCKER_CERT_PATH (Docker's conventions) → dockerode's options. */
export function dockerOptions(settings: RuntimeConfig): { options: ModemOptions; description: string } {
  const host = settings.dockerHost ?? 'unix:///var/run/docker.sock';
  if (host.startsWith('unix://')) {
    const socketPath = host.slice('unix://'.length) || '/var/run/docker.sock';
    return { options: { socketPath }, description: `docker at unix://${socketPath}` };
  }
  const url = new URL(host.replace(/^tcp:/, settings.dockerTlsVerify ? 'https:' : 'http:'));
  const options: ModemOptions = {
    host: url.hostname,
    port: Number(url.port || (settings.dockerTlsVerify ? 2376 : 2375)),
    protocol: settings.dockerTlsVerify || url.protocol === 'https:' ? 'https' : 'http',
  };
  if (settings.dockerCertPath) {
    options.ca = fs.readFileSync(path.join(settings.dockerCertPath, 'ca.pem'));
    options.cert = fs.readFileSync(path.join(settings.dockerCertPath, 'cert.pem'));
    options.key = fs.readFileSync(path.join(settings.dockerCertPath, 'key.pem'));
  }
  return { options, description: `docker at ${host}` };
}

interface EngineError {
  statusCode?: number;
  code?: string;
  json?: { message?: string } | null;
  reason?: string;
  message?: string;
}

const messageOf = (err: unknown) => {
  const e = err as EngineError;
  const json = e.json && typeof e.json === 'object' ? e.json.message : undefined;
  return String(json ?? e.message ?? err)
    .replace(/^\(HTTP code \d+\) [a-z ]+ - /, '')
    .trim();
};

/** A forced removal refused for a container in transition (Podman), and how often and how far apart it is retried. */
const IN_TRANSITION = /container state improper/i;
const REMOVE_ATTEMPTS = 10;
const REMOVE_RETRY_MS = 200;

/** Not there (any more): a 404, or Podman's 500 "no such container" of a container removed meanwhile. */
const isGone = (err: unknown) =>
  (err as EngineError).statusCode === 404 || /no such container|does not exist in database/i.test(messageOf(err));

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EACCES',
]);

function isConnectionError(err: unknown) {
  const e = err as EngineError & { cause?: EngineError };
  return (
    (e.code !== undefined && CONNECTION_CODES.has(e.code)) ||
    (e.cause?.code !== undefined && CONNECTION_CODES.has(e.cause.code)) ||
    /socket hang up|timeout/i.test(e.message ?? '')
  );
}

export class DockerRuntime implements Runtime {
  readonly description: string;
  private readonly docker: Docker;
  /** Without a timeout: streams that stay open (events, followed logs, pulls). */
  private readonly streams: Docker;

  constructor(settings: RuntimeConfig) {
    const { options, description } = dockerOptions(settings);
    this.description = description;
    this.docker = new Docker({ ...options, timeout: CALL_TIMEOUT_MS });
    this.streams = new Docker(options);
  }

  /** Every engine failure through one door: connection problems read as "engine down". */
  private fail(err: unknown, context: string): never {
    if (err instanceof RuntimeError) throw err;
    if (isConnectionError(err))
      throw new RuntimeError('engine_down', `${this.description} is unreachable (${messageOf(err)})`);
    const status = (err as EngineError).statusCode;
    const message = messageOf(err);
    if (isGone(err)) throw new RuntimeError('not_found', `${context}: ${message}`);
    if (status === 409) throw new RuntimeError('conflict', `${context}: ${message}`);
    throw new RuntimeError('other', `${context}: ${message}`);
  }

  async ping() {
    try {
      await this.docker.ping();
    } catch (err) {
      this.fail(err, 'ping');
    }
  }

  async list(labels: Record<string, string>): Promise<ObservedContainer[]> {
    try {
      const found = await this.docker.listContainers({ all: true, filters: { label: labelFilter(labels) } });
      return found.map((c) => ({
        id: c.Id,
        name: (c.Names?.[0] ?? '').replace(/^\//, ''),
        labels: c.Labels ?? {},
        state: stateOf(c.State),
        health: healthOf(c.Status),
        image: c.Image,
        ports: (c.Ports ?? [])
          .filter((p) => p.PublicPort)
          .map((p) => ({
            container_port: p.PrivatePort,
            protocol: p.Type,
            host_ip: p.IP ?? '',
            host_port: p.PublicPort,
          })),
        exitCode: exitCodeOf(c.Status),
        created: c.Created,
      }));
    } catch (err) {
      this.fail(err, 'listing containers');
    }
  }

  async inspect(id: string): Promise<InspectedContainer | null> {
    try {
      const c = await this.docker.getContainer(id).inspect();
      const health = c.State.Health?.Status;
      const ports: ObservedContainer['ports'] = [];
      for (const [key, bindings] of Object.entries(c.NetworkSettings?.Ports ?? {})) {
        const [port, protocol] = key.split('/');
        for (const b of bindings ?? [])
          if (b.HostPort)
            ports.push({
              container_port: Number(port),
              protocol: protocol ?? 'tcp',
              host_ip: b.HostIp ?? '',
              host_port: Number(b.HostPort),
            });
      }
      return {
        id: c.Id,
        name: c.Name.replace(/^\//, ''),
        labels: c.Config.Labels ?? {},
        state: stateOf(c.State.Status),
        health: health === 'healthy' || health === 'unhealthy' || health === 'starting' ? health : null,
        image: c.Config.Image,
        ports,
        exitCode: c.State.Running ? null : c.State.ExitCode,
        created: Math.floor(new Date(c.Created).getTime() / 1000),
        oomKilled: Boolean(c.State.OOMKilled),
        restarts: c.RestartCount ?? 0,
        error: c.State.Error ?? '',
        startedAt: c.State.StartedAt || null,
        finishedAt: c.State.FinishedAt || null,
      };
    } catch (err) {
      if (isGone(err)) return null;
      this.fail(err, 'inspecting a container');
    }
  }

  async hasImage(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (err) {
      if ((err as EngineError).statusCode === 404) return false;
      this.fail(err, `looking up image ${image}`);
    }
  }

  async pull(image: string, auth: ContainerSpec['registryAuth'], onProgress: (p: PullProgress) => void) {
    const stall = new AbortController();
    let timer = setTimeout(() => stall.abort(), PULL_STALL_MS);
    const stalled = () =>
      new RuntimeError(
        'registry_refused',
        `image ${image} could not be pulled: its registry did not answer for ${PULL_STALL_MS / 1000} s (is it reachable from the engine?)`,
      );
    let stream: NodeJS.ReadableStream;
    try {
      stream = (await this.streams.pull(image, {
        ...(auth ? { authconfig: auth } : {}),
        abortSignal: stall.signal,
      })) as NodeJS.ReadableStream;
    } catch (err) {
      clearTimeout(timer);
      if (stall.signal.aborted) throw stalled();
      throw pullError(image, err, (e) => this.fail(e, `pulling ${image}`));
    }
    const layers = new Map<string, { current: number; total: number }>();
    let failure: string | null = null;
    const onLine = (line: string) => {
      if (!line.trim()) return;
      let event: {
        id?: string;
        status?: string;
        error?: string;
        errorDetail?: { message?: string };
        progressDetail?: { current?: number; total?: number };
      };
      try {
        event = JSON.parse(line);
      } catch {
        return;
      }
      if (event.error || event.errorDetail) {
        failure = event.errorDetail?.message ?? event.error ?? 'pull failed';
        return;
      }
      if (event.id && event.progressDetail?.total)
        layers.set(event.id, { current: event.progressDetail.current ?? 0, total: event.progressDetail.total });
      let current = 0;
      let total = 0;
      for (const l of layers.values()) {
        current += l.current;
        total += l.total;
      }
      onProgress({ status: event.status ?? 'pulling', current_bytes: current, total_bytes: total });
    };
    // Progress is JSON lines; Podman's last line (the error) has no newline: the rest is parsed at the end.
    let buffered = '';
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        clearTimeout(timer);
        timer = setTimeout(() => stall.abort(), PULL_STALL_MS);
        buffered += chunk.toString('utf8');
        let at: number;
        while ((at = buffered.indexOf('\n')) >= 0) {
          onLine(buffered.slice(0, at));
          buffered = buffered.slice(at + 1);
        }
      }
      onLine(buffered);
    } catch (err) {
      if (stall.signal.aborted) throw stalled();
      throw pullError(image, err, (e) => this.fail(e, `pulling ${image}`));
    } finally {
      clearTimeout(timer);
    }
    if (failure !== null) throw pullError(image, { error: failure }, (e) => this.fail(e, `pulling ${image}`));
    if (!(await this.hasImage(image)))
      throw new RuntimeError('image_not_found', `image ${image} not found: the pull ended without it`);
  }

  async create(spec: ContainerSpec): Promise<string> {
    try {
      for (const v of spec.volumes) {
        // Kept across re-creates: created once with the deployment's labels, then found by name.
        const existing = await this.docker
          .getVolume(v.name)
          .inspect()
          .catch((err: EngineError) => {
            if (err.statusCode === 404) return null;
            throw err;
          });
        if (!existing)
          await this.docker.createVolume({
            Name: v.name,
            Labels: {
              'io.fleet.core.instance': spec.labels['io.fleet.core.instance']!,
              'io.fleet.core.deployment': spec.labels['io.fleet.core.deployment']!,
            },
          });
      }
      const exposed: Record<string, object> = {};
      const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
      for (const p of spec.ports) {
        const key = `${p.containerPort}/${p.protocol}`;
        exposed[key] = {};
        bindings[key] = [{ HostIp: p.hostIp, HostPort: p.hostPort === null ? '' : String(p.hostPort) }];
      }
      const container = await this.docker.createContainer({
        name: spec.name,
        Image: spec.image,
        ...(spec.command.length > 0 ? { Cmd: spec.command } : {}),
        Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
        Labels: spec.labels,
        ExposedPorts: exposed,
        HostConfig: {
          PortBindings: bindings,
          Mounts: spec.volumes.map((v) => ({ Type: 'volume' as const, Source: v.name, Target: v.mountPath })),
          RestartPolicy: { Name: 'unless-stopped' },
          ...(spec.nanoCpus !== null ? { NanoCpus: spec.nanoCpus } : {}),
          ...(spec.memoryBytes !== null ? { Memory: spec.memoryBytes } : {}),
          ...(spec.ulimits.length > 0
            ? { Ulimits: spec.ulimits.map((u) => ({ Name: u.name, Soft: u.soft, Hard: u.hard })) }
            : {}),
          ...(spec.gpuCount > 0
            ? { DeviceRequests: [{ Driver: 'nvidia', Count: spec.gpuCount, Capabilities: [['gpu']] }] }
            : {}),
        },
      });
      if (spec.files.length > 0) await container.putArchive(await filesTar(spec.files), { path: '/' });
      return container.id;
    } catch (err) {
      const message = messageOf(err);
      if ((err as EngineError).statusCode === 404 && /image|no such/i.test(message))
        throw new RuntimeError('image_not_found', `image ${spec.image} not found: ${message}`);
      this.fail(err, `creating container ${spec.name}`);
    }
  }

  async start(id: string) {
    try {
      await this.docker.getContainer(id).start();
    } catch (err) {
      const message = messageOf(err);
      if ((err as EngineError).statusCode === 304) return; // already running
      if (/address already in use|port is already allocated|bind.*in use/i.test(message)) {
        const port = /:(\d+)(?::|\s|$)/.exec(message.slice(message.search(/listen|bind|port/i)))?.[1];
        throw new RuntimeError(
          'port_in_use',
          `host port ${port ?? ''} is in use: ${message}`.replace('port  is', 'port is'),
        );
      }
      this.fail(err, 'starting the container');
    }
  }

  async stop(id: string) {
    try {
      await this.docker.getContainer(id).stop({ t: 10 });
    } catch (err) {
      if ((err as EngineError).statusCode === 304) return; // already stopped
      this.fail(err, 'stopping the container');
    }
  }

  async restart(id: string) {
    try {
      await this.docker.getContainer(id).restart({ t: 10 });
    } catch (err) {
      this.fail(err, 'restarting the container');
    }
  }

  async remove(id: string) {
    for (let attempt = 1; ; attempt++) {
      try {
        return void (await this.docker.getContainer(id).remove({ force: true }));
      } catch (err) {
        if (isGone(err)) return;
        // Podman refuses a forced removal while the container is between exiting and its restart or clean-up
        // (HTTP 500 "could not be stopped … container state improper"); a moment later it is removed.
        if (attempt < REMOVE_ATTEMPTS && IN_TRANSITION.test(messageOf(err))) {
          await sleep(REMOVE_RETRY_MS);
          continue;
        }
        this.fail(err, 'removing the container');
      }
    }
  }

  async removeVolumes(labels: Record<string, string>) {
    try {
      const { Volumes } = await this.docker.listVolumes({ filters: { label: labelFilter(labels) } });
      for (const v of Volumes ?? []) await this.docker.getVolume(v.Name).remove();
      return (Volumes ?? []).length;
    } catch (err) {
      this.fail(err, 'removing volumes');
    }
  }

  async logs(id: string, opts: { tail: number; follow: boolean }): Promise<NodeJS.ReadableStream> {
    const client = opts.follow ? this.streams : this.docker;
    const container = client.getContainer(id);
    let tty = false;
    try {
      tty = Boolean((await container.inspect()).Config.Tty);
    } catch (err) {
      this.fail(err, 'reading the logs');
    }
    const out = new PassThrough();
    // Followed logs: an engine may answer only with the first line (Podman), so the text stream is returned
    // at once and the engine's stream joins it when it opens.
    const opened = (
      opts.follow
        ? container.logs({ follow: true, stdout: true, stderr: true, tail: opts.tail })
        : container.logs({ follow: false, stdout: true, stderr: true, tail: opts.tail })
    ).then((raw: NodeJS.ReadableStream | Buffer) => {
      const source = Buffer.isBuffer(raw) ? Readable.from([raw]) : raw;
      if (out.destroyed) return (source as Readable).destroy?.();
      // Without a TTY the engine multiplexes stdout and stderr in frames: one text stream out.
      if (tty) source.pipe(out);
      else {
        client.modem.demuxStream(source, out, out);
        source.on('end', () => out.end());
      }
      source.on('error', (err) => out.destroy(err));
      out.on('close', () => (source as Readable).destroy?.());
    });
    if (!opts.follow) {
      try {
        await opened;
      } catch (err) {
        this.fail(err, 'reading the logs');
      }
    } else opened.catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
    return out;
  }

  events(labels: Record<string, string>, onEvent: (e: RuntimeEvent) => void, onEnd: (err?: Error) => void) {
    let stream: NodeJS.ReadableStream | null = null;
    let stopped = false;
    let buffered = '';
    this.streams
      .getEvents({ filters: { type: ['container'], label: labelFilter(labels) } })
      .then((s) => {
        stream = s;
        if (stopped) return (s as Readable).destroy?.();
        s.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          let at: number;
          while ((at = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, at).trim();
            buffered = buffered.slice(at + 1);
            if (!line) continue;
            try {
              const e = JSON.parse(line) as {
                Action?: string;
                status?: string;
                id?: string;
                Actor?: { ID?: string; Attributes?: Record<string, string> };
              };
              const attributes = e.Actor?.Attributes ?? {};
              const exit = attributes.exitCode;
              onEvent({
                action: String(e.Action ?? e.status ?? ''),
                containerId: String(e.Actor?.ID ?? e.id ?? ''),
                labels: attributes,
                exitCode: exit === undefined ? null : Number(exit),
              });
            } catch {
              /* not an event line */
            }
          }
        });
        s.on('end', () => !stopped && onEnd());
        s.on('error', (err: Error) => !stopped && onEnd(err));
      })
      .catch((err: Error) => !stopped && onEnd(err));
    return () => {
      stopped = true;
      (stream as Readable | null)?.destroy?.();
    };
  }
}

/**
 * Podman's states beside Docker's: stopped (exited), stopping (still running until it has), configured and
 * initialized (created).
 */
function stateOf(state: string | undefined): ContainerState {
  const s = String(state ?? '').toLowerCase();
  if (s === 'stopped') return 'exited';
  if (s === 'stopping') return 'running';
  if (s === 'configured' || s === 'initialized') return 'created';
  return (
    ['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead'].includes(s) ? s : 'dead'
  ) as ContainerState;
}

const labelFilter = (labels: Record<string, string>) => Object.entries(labels).map(([k, v]) => `${k}=${v}`);

function healthOf(status: string | undefined): ObservedContainer['health'] {
  if (!status) return null;
  if (/\(healthy\)/i.test(status)) return 'healthy';
  if (/\(unhealthy\)/i.test(status)) return 'unhealthy';
  if (/\(health: starting\)|\(starting\)/i.test(status)) return 'starting';
  return null;
}

function exitCodeOf(status: string | undefined): number | null {
  const m = /Exited \((-?\d+)\)/i.exec(status ?? '');
  return m ? Number(m[1]) : null;
}

/** A failed pull, in words: not found, refused by the registry, or why it could not be fetched. */
function pullError(image: string, err: unknown, otherwise: (err: unknown) => never): RuntimeError {
  const e = err as EngineError & { error?: string; errorDetail?: { message?: string } };
  const message = String(e.errorDetail?.message ?? e.error ?? messageOf(err));
  if (isConnectionError(err) && !e.error) {
    try {
      otherwise(err);
    } catch (mapped) {
      if (mapped instanceof RuntimeError && mapped.kind === 'engine_down') return mapped;
    }
  }
  if (/no such host|connection refused|dial tcp|i\/o timeout|network is unreachable|x509|tls:/i.test(message))
    return new RuntimeError(
      'other',
      `image ${image} is not on the engine and could not be pulled: its registry is unreachable (${message})`,
    );
  if (/unauthorized|authentication required|denied|forbidden|401|403/i.test(message))
    return new RuntimeError('registry_refused', `the registry refused image ${image}: ${message}`);
  if (/not found|manifest unknown|no such|does not exist|404/i.test(message))
    return new RuntimeError('image_not_found', `image ${image} not found: ${message}`);
  return new RuntimeError('image_not_found', `image ${image} not found locally and could not be pulled: ${message}`);
}

/** A tar of the secret files (directories first), built with tar-stream. */
async function filesTar(files: ContainerSpec['files']): Promise<Buffer> {
  const tar = pack();
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.path.replace(/^\//, '').split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  for (const d of [...dirs].sort()) tar.entry({ name: `${d}/`, type: 'directory', mode: 0o755, uid: 0, gid: 0 });
  for (const f of files)
    tar.entry({ name: f.path.replace(/^\//, ''), mode: f.mode, uid: 0, gid: 0 }, Buffer.from(f.content, 'utf8'));
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
