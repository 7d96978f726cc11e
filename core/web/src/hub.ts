/** The Hub connection, the synced catalog and deployments (issue 11): shapes and one function per endpoint. */
import { api } from './session';
import type { ObservedState, Pagination } from './types';

export type { ObservedState };

export type HubSettings =
  | { configured: false }
  | {
      configured: true;
      source: 'environment' | 'settings';
      hub_url: string;
      key_prefix: string;
      instance_id: string | null;
      organization: { id: string; name: string; slug: string } | null;
      connected: boolean;
      key_refused: boolean;
      last_sync_at: string | null;
      checked_at: string | null;
      last_error: string | null;
      last_error_at: string | null;
      template_count: number;
    };

export interface Template {
  id: string;
  slug: string;
  name: string;
  description: string;
  version: string;
  category_slug: string;
  category_name: string;
  image_name: string;
  image_tag: string;
  tags: string[];
  env: Array<{ name: string; value: string }>;
  env_schema: Array<{ name: string; required: boolean; default_value: string; description: string }>;
  updated_at: string;
  documentation?: string;
  ports?: Array<{ containerPort: number; protocol: string }>;
  volume_mounts?: Array<{ name: string; mountPath: string }>;
  cpu_request?: string;
  memory_request?: string;
  gpu_count?: number;
  vram_request?: string;
}

/** A deployment variable: a literal, or a binding to a Core secret (shown by name, never by value). */
export type EnvValue = string | { secret: string };

export interface DeploymentInput {
  name: string;
  template_slug: string;
  env: Record<string, EnvValue>;
  secret_refs: string[];
  host_ports?: HostPort[];
  desired_state?: 'running' | 'stopped';
}

export interface PublishedPort {
  container_port: number;
  protocol: 'tcp' | 'udp';
  host_ip: string;
  host_port: number;
}

export interface Observed {
  state: ObservedState;
  /** Where the image has a health check. */
  health: 'healthy' | 'unhealthy' | 'starting' | null;
  reason: string | null;
  since: string;
  ports: PublishedPort[];
  restarts: number;
  exit_code: number | null;
  image: string | null;
  /** A newer version of the template was synced; apply-update deploys it. */
  update_available: boolean;
  /** A bound or mounted secret changed since the container was created: a restart picks it up. */
  needs_restart?: boolean;
  /** While the image is pulled. */
  pull?: { status: string; current_bytes: number; total_bytes: number };
}

/** A host port an admin chose for a container port (others are assigned by the engine). */
export interface HostPort {
  container_port: number;
  protocol: 'tcp' | 'udp';
  host_port: number;
}

export interface Deployment {
  id: string;
  name: string;
  template_slug: string;
  template_version: string;
  env: Record<string, EnvValue>;
  secret_refs: string[];
  status: 'ok' | 'template_missing';
  desired_state: 'running' | 'stopped';
  host_ports: HostPort[];
  observed: Observed;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export type DeploymentOperation = 'start' | 'stop' | 'restart' | 'apply-update';

const enc = encodeURIComponent;

export const hub = {
  settings: () => api<HubSettings>('GET', '/settings/hub'),
  connect: (body: { hub_url: string; instance_key: string }) => api<HubSettings>('PUT', '/settings/hub', { body }),
  disconnect: () => api<void>('DELETE', '/settings/hub'),
  sync: () => api<{ added: number; updated: number; removed: number; checked_at: string }>('POST', '/catalog/sync'),

  categories: () => api<{ categories: { slug: string; name: string; count: number }[] }>('GET', '/catalog/categories'),
  templates: (q: { search?: string; category?: string; page?: number; limit?: number }) =>
    api<{ templates: Template[]; pagination: Pagination }>('GET', '/catalog/templates', { query: q }),
  template: (slug: string) => api<Template>('GET', `/catalog/templates/${enc(slug)}`),

  deployments: (q: { page?: number }) =>
    api<{ deployments: Deployment[]; pagination: Pagination }>('GET', '/deployments', { query: q }),
  createDeployment: (body: DeploymentInput) => api<Deployment>('POST', '/deployments', { body }),
  updateDeployment: (id: string, body: Partial<DeploymentInput>) =>
    api<Deployment>('PUT', `/deployments/${enc(id)}`, { body }),
  deployment: (id: string) => api<Deployment>('GET', `/deployments/${enc(id)}`),
  deleteDeployment: (id: string, opts: { volumes?: boolean } = {}) =>
    api<void>('DELETE', `/deployments/${enc(id)}`, { query: { volumes: opts.volumes ? 'true' : undefined } }),
  /** start, stop, restart or apply-update: Core records the desired state and its reconciler acts on it. */
  operate: (id: string, op: DeploymentOperation) => api<unknown>('POST', `/deployments/${enc(id)}/${op}`),
};
