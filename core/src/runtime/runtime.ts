/**
 * The runtime interface: what Core needs from a container engine, and nothing of how a given engine is
 * spoken to. The reconciler (domain/reconciler.ts) drives it; runtime/docker.ts implements it on the Docker
 * Engine API (Docker, Podman's compatible service). A Kubernetes implementation (docs/core-runtime.md) maps
 * the same calls to a Deployment + Service + PVCs per deployment, found by the same labels.
 */

/** A container spec with every value resolved (secret values included): it exists only while applied. */
export interface ContainerSpec {
  /** Engine-side name: unique per Core instance, deployment and spec hash. */
  name: string;
  /** image_name:image_tag, with the registry host when the template names one. */
  image: string;
  /** Credentials for the image's registry (from a sealed secret), or null. */
  registryAuth: { serveraddress: string; username: string; password: string } | null;
  /** Replaces the image's command when not empty. */
  command: string[];
  env: Record<string, string>;
  /** Files put into the container before it starts (secret_refs at /run/secrets/<name>, mode 0400). */
  files: { path: string; content: string; mode: number }[];
  ports: { containerPort: number; protocol: 'tcp' | 'udp'; hostIp: string; hostPort: number | null }[];
  /** Named volumes (created when absent, labelled like the container) and where they are mounted. */
  volumes: { name: string; mountPath: string }[];
  nanoCpus: number | null;
  memoryBytes: number | null;
  gpuCount: number;
  ulimits: { name: string; soft: number; hard: number }[];
  labels: Record<string, string>;
}

export type ContainerState = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';

/** What one list call tells about a container (inspect adds exitCode, oomKilled, restarts, error). */
export interface ObservedContainer {
  id: string;
  name: string;
  labels: Record<string, string>;
  state: ContainerState;
  /** healthy / unhealthy / starting when the image has a health check. */
  health: 'healthy' | 'unhealthy' | 'starting' | null;
  image: string;
  ports: { container_port: number; protocol: string; host_ip: string; host_port: number }[];
  exitCode: number | null;
  /** Unix seconds the container was created. */
  created: number;
}

export interface InspectedContainer extends ObservedContainer {
  oomKilled: boolean;
  restarts: number;
  error: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface PullProgress {
  status: string;
  current_bytes: number;
  total_bytes: number;
}

/** An engine-side event of one of our containers (die, oom, start, destroy, ...). */
export interface RuntimeEvent {
  action: string;
  containerId: string;
  labels: Record<string, string>;
  exitCode: number | null;
}

/** A failure in words the admin can act on; `kind` lets the reconciler tell them apart. */
export class RuntimeError extends Error {
  constructor(
    readonly kind:
      'image_not_found' | 'registry_refused' | 'port_in_use' | 'engine_down' | 'conflict' | 'not_found' | 'other',
    message: string,
  ) {
    super(message);
    this.name = 'RuntimeError';
  }
}

export interface Runtime {
  /** "docker at unix:///run/docker.sock": named in logs, readiness and 503 answers. */
  readonly description: string;
  ping(): Promise<void>;
  /** Every container (running or not) carrying all these labels: ONE engine call. */
  list(labels: Record<string, string>): Promise<ObservedContainer[]>;
  inspect(id: string): Promise<InspectedContainer | null>;
  /** True when the image is present locally. */
  hasImage(image: string): Promise<boolean>;
  pull(image: string, auth: ContainerSpec['registryAuth'], onProgress: (p: PullProgress) => void): Promise<void>;
  /** Creates volumes and the container, puts its files in; does not start it. Returns the container id. */
  create(spec: ContainerSpec): Promise<string>;
  start(id: string): Promise<void>;
  stop(id: string): Promise<void>;
  restart(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** Removes every volume carrying these labels. */
  removeVolumes(labels: Record<string, string>): Promise<number>;
  /** The container's output as text (stdout and stderr merged); ends with the container when following. */
  logs(id: string, opts: { tail: number; follow: boolean }): Promise<NodeJS.ReadableStream>;
  /** Calls onEvent for container events carrying these labels until the returned stop is called; onEnd when the stream ends. */
  events(labels: Record<string, string>, onEvent: (e: RuntimeEvent) => void, onEnd: (err?: Error) => void): () => void;
}
