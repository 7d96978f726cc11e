/**
 * Template snapshot + deployment → the container spec the runtime applies (docs/core-runtime.md, the mapping
 * table). Planning never touches a secret value: the hashes are computed with each secret replaced by its name
 * and updated_at, so a label never reveals a value and a rotation changes `spec-hash` (not `config-hash`).
 * Values are read only by `resolve`, called when a container is about to be created.
 */
import { createHash } from 'node:crypto';
import type { RuntimeConfig } from '../config';
import { parseCpu, parseMemory, QuantityError } from '../runtime/quantity';
import type { ContainerSpec } from '../runtime/runtime';
import type { CatalogTemplate } from './catalog';

export const LABEL = {
  instance: 'io.fleet.core.instance',
  deployment: 'io.fleet.core.deployment',
  templateVersion: 'io.fleet.core.template-version',
  specHash: 'io.fleet.core.spec-hash',
  configHash: 'io.fleet.core.config-hash',
} as const;

export interface DesiredDeployment {
  id: string;
  name: string;
  desiredState: 'running' | 'stopped';
  snapshot: Record<string, unknown> | null;
  /** Literal variables of the deployment. */
  env: Record<string, string>;
  /** Variable → secret name. */
  bindings: Record<string, string>;
  secretRefs: string[];
  hostPorts: { container_port: number; protocol: 'tcp' | 'udp'; host_port: number }[];
}

export type Plan =
  | { ok: false; state: 'failed' | 'unschedulable' | 'template_missing'; reason: string }
  | {
      ok: true;
      name: string;
      image: string;
      registryHost: string | null;
      configHash: string;
      specHash: string;
      labels: Record<string, string>;
      /** Host ports chosen by the admin ("8080/tcp"): a replacement stops the old container first when they overlap. */
      fixedHostPorts: string[];
      /** Secrets whose values `resolve` needs. */
      secretNames: string[];
      resolve(values: Map<string, string>, registryAuth: ContainerSpec['registryAuth']): ContainerSpec;
    };

const sha = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex');

/** A short, engine-safe name part. */
const short = (s: string) => s.replace(/[^a-zA-Z0-9_.-]/g, '-');

export function planContainer(
  d: DesiredDeployment,
  secretVersions: Map<string, string>,
  settings: Pick<RuntimeConfig, 'publishAddress' | 'nodeLabels' | 'ulimits'>,
  instanceId: string,
): Plan {
  const t = d.snapshot as (CatalogTemplate & Record<string, unknown>) | null;
  if (!t) return { ok: false, state: 'template_missing', reason: 'the template has left this instance’s catalog' };

  const selector = (t.node_selector as Record<string, string> | undefined) ?? {};
  const unmet = Object.entries(selector).filter(([k, v]) => settings.nodeLabels[k] !== String(v));
  if (unmet.length > 0)
    return {
      ok: false,
      state: 'unschedulable',
      reason: `node_selector ${unmet.map(([k, v]) => `${k}=${v}`).join(', ')} is not met by this host's labels (CORE_NODE_LABELS=${
        Object.entries(settings.nodeLabels)
          .map(([k, v]) => `${k}=${v}`)
          .join(',') || 'none'
      })`,
    };

  let nanoCpus: number | null;
  let memoryBytes: number | null;
  try {
    nanoCpus = parseCpu(t.cpu_request as string | undefined);
    memoryBytes = parseMemory(t.memory_request as string | undefined);
  } catch (err) {
    if (err instanceof QuantityError)
      return { ok: false, state: 'failed', reason: `bad quantity in the template: ${err.message}` };
    throw err;
  }
  const gpuCount = Number(t.gpu_count ?? 0);
  if (!Number.isInteger(gpuCount) || gpuCount < 0)
    return { ok: false, state: 'failed', reason: `bad quantity in the template: gpu_count ${String(t.gpu_count)}` };

  const imageName = String(t.image_name ?? '').trim();
  if (!imageName) return { ok: false, state: 'failed', reason: 'the template names no image (image_name is empty)' };
  const tag = String(t.image_tag ?? '').trim() || 'latest';
  let registryHost: string | null = null;
  if (typeof t.registry_url === 'string' && t.registry_url.trim() !== '') {
    try {
      registryHost = new URL(t.registry_url).host;
    } catch {
      return { ok: false, state: 'failed', reason: `bad registry_url in the template: ${t.registry_url}` };
    }
  }
  const image = `${registryHost && !imageName.startsWith(`${registryHost}/`) ? `${registryHost}/` : ''}${imageName}:${tag}`;

  const ports: ContainerSpec['ports'] = [];
  for (const p of (t.ports as { containerPort: number; protocol?: string }[] | undefined) ?? []) {
    const protocol = String(p.protocol ?? 'tcp').toLowerCase();
    if (
      !Number.isInteger(p.containerPort) ||
      p.containerPort < 1 ||
      p.containerPort > 65_535 ||
      !/^(tcp|udp)$/.test(protocol)
    )
      return { ok: false, state: 'failed', reason: `bad port in the template: ${JSON.stringify(p)}` };
    const chosen = d.hostPorts.find((h) => h.container_port === p.containerPort && h.protocol === protocol);
    ports.push({
      containerPort: p.containerPort,
      protocol: protocol as 'tcp' | 'udp',
      hostIp: settings.publishAddress,
      hostPort: chosen?.host_port ?? null,
    });
  }

  const volumes: ContainerSpec['volumes'] = [];
  for (const v of (t.volume_mounts as { name: string; mountPath: string }[] | undefined) ?? []) {
    if (!v.name || !/^\//.test(v.mountPath ?? ''))
      return { ok: false, state: 'failed', reason: `bad volume mount in the template: ${JSON.stringify(v)}` };
    volumes.push({ name: volumeName(instanceId, d.id, v.name), mountPath: v.mountPath });
  }

  const command = Array.isArray(t.command) ? (t.command as unknown[]).map(String) : [];
  const literalEnv: Record<string, string> = {};
  for (const e of t.env ?? []) literalEnv[e.name] = e.value;
  for (const e of t.env_schema ?? [])
    if (e.default_value !== '' && !(e.name in literalEnv)) literalEnv[e.name] = e.default_value;
  Object.assign(literalEnv, d.env);
  for (const name of Object.keys(d.bindings)) delete literalEnv[name];

  const needed = [...new Set([...Object.values(d.bindings), ...d.secretRefs])];
  const absent = needed.filter((n) => !secretVersions.has(n));
  if (absent.length > 0)
    return {
      ok: false,
      state: 'failed',
      reason: `secret ${absent.join(', ')} no longer exists: create it again, or change the deployment's env or secret_refs`,
    };
  const version = (name: string) => secretVersions.get(name) ?? 'absent';
  const shape = {
    image,
    command,
    env: literalEnv,
    bindings: Object.fromEntries(Object.entries(d.bindings).sort()),
    files: [...d.secretRefs].sort(),
    ports,
    volumes,
    nanoCpus,
    memoryBytes,
    gpuCount,
    ulimits: settings.ulimits,
  };
  const configHash = sha(shape).slice(0, 32);
  const specHash = sha({
    configHash,
    versions: [...new Set([...Object.values(d.bindings), ...d.secretRefs])].sort().map((n) => [n, version(n)]),
  }).slice(0, 32);
  const labels: Record<string, string> = {
    [LABEL.instance]: instanceId,
    [LABEL.deployment]: d.id,
    [LABEL.templateVersion]: String(t.version ?? ''),
    [LABEL.configHash]: configHash,
    [LABEL.specHash]: specHash,
  };
  const name = `core-${instanceId.slice(0, 8)}-${short(d.name)}-${specHash.slice(0, 8)}`;
  const secretNames = [...new Set([...Object.values(d.bindings), ...d.secretRefs])];
  return {
    ok: true,
    name,
    image,
    registryHost,
    configHash,
    specHash,
    labels,
    fixedHostPorts: ports.filter((p) => p.hostPort !== null).map((p) => `${p.hostPort}/${p.protocol}`),
    secretNames,
    resolve(values, registryAuth) {
      const value = (secret: string) => {
        const v = values.get(secret);
        if (v === undefined) throw new Error(`secret ${secret} vanished while its container was created`);
        return v;
      };
      const env = { ...literalEnv };
      for (const [variable, secret] of Object.entries(d.bindings)) env[variable] = value(secret);
      return {
        name,
        image,
        registryAuth,
        command,
        env,
        files: d.secretRefs.map((secret) => ({ path: `/run/secrets/${secret}`, content: value(secret), mode: 0o400 })),
        ports,
        volumes,
        nanoCpus,
        memoryBytes,
        gpuCount,
        ulimits: settings.ulimits,
        labels,
      };
    },
  };
}

/** The named volume of one deployment's volume mount: kept across re-creates, removed only when asked. */
export const volumeName = (instanceId: string, deploymentId: string, mount: string) =>
  `core-${instanceId.slice(0, 8)}-${deploymentId}-${short(mount)}`;
