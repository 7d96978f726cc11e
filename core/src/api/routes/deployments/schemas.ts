/** Shapes of the deployment routes. */
import { z } from '@hono/zod-openapi';
import { OBSERVED_STATES } from '../../../domain/runtimeControl';
import { SECRET_NAME } from '../../../domain/secrets';

const BindingSchema = z
  .strictObject({ secret: z.string().regex(SECRET_NAME, 'must be a secret name (A–Z, a–z, 0–9, _ . -)') })
  .openapi('SecretBinding', {
    description: 'The variable takes the value of this Core secret; callers only ever see its name',
  });

/** A literal, or a binding to a Core secret. Credential-named variables (…PASSWORD, …_KEY, …) take only bindings. */
export const EnvValueSchema = z
  .union([z.string().max(65_536, 'must be at most 65,536 characters'), BindingSchema])
  .openapi('EnvValue');

export const PortSchema = z
  .object({
    container_port: z.number().int(),
    protocol: z.enum(['tcp', 'udp']),
    host_ip: z.string(),
    host_port: z.number().int(),
  })
  .openapi('PublishedPort');

export const ObservedSchema = z
  .object({
    state: z.enum(OBSERVED_STATES).openapi({
      description:
        'What the engine runs: pending (not yet applied), pulling (see pull), starting, running, restarting (see restarts), ' +
        'exited (see exit_code), failed (reason in words: image not found, registry refused, port in use, out of memory, bad quantity), ' +
        'unschedulable (node_selector not met by CORE_NODE_LABELS), template_missing, unknown (engine unreachable or CORE_RUNTIME=none)',
    }),
    reason: z.string().nullable().openapi({ description: 'Why, in words, when the state needs one' }),
    since: z.string().openapi({ description: 'ISO 8601: when the state began (or was first seen)' }),
    health: z
      .enum(['healthy', 'unhealthy', 'starting'])
      .nullable()
      .openapi({ description: 'Where the image has a health check' }),
    ports: z.array(PortSchema).openapi({ description: 'Published ports, as the engine reports them' }),
    restarts: z.number().int(),
    exit_code: z.number().int().nullable(),
    image: z.string().nullable(),
    update_available: z
      .boolean()
      .openapi({ description: 'A newer version of the template was synced; POST …/apply-update deploys it' }),
    needs_restart: z.boolean().openapi({
      description: 'A bound or mounted secret changed since the container was created: restart to pick it up',
    }),
    pull: z
      .object({ status: z.string(), current_bytes: z.number(), total_bytes: z.number() })
      .optional()
      .openapi({ description: 'While the image is pulled: its progress' }),
  })
  .openapi('ObservedState');

export const HostPortSchema = z
  .strictObject({
    container_port: z.number().int().min(1).max(65_535),
    protocol: z.enum(['tcp', 'udp']).default('tcp'),
    host_port: z.number().int().min(1).max(65_535),
  })
  .openapi('HostPort', { description: 'Publish this container port on this host port (on CORE_PUBLISH_ADDRESS)' });

export const DeploymentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    template_slug: z.string(),
    template_id: z.string(),
    template_version: z.string(),
    env: z.record(z.string(), EnvValueSchema),
    secret_refs: z
      .array(z.string())
      .openapi({ description: 'Secrets mounted as files; variables bound to secrets are in env' }),
    status: z
      .enum(['ok', 'template_missing'])
      .openapi({ description: 'template_missing: the template has left this instance’s catalog' }),
    desired_state: z.enum(['running', 'stopped']),
    host_ports: z.array(HostPortSchema).openapi({
      description: 'Host ports chosen by an admin; other ports are assigned by the engine (see observed.ports)',
    }),
    observed: ObservedSchema,
    created_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Deployment');

/** The writable fields; the domain checks them against the synced template. */
export const deploymentFields = {
  name: z.string().min(1).max(63),
  template_slug: z.string().min(1).max(200),
  env: z
    .record(z.string().max(256), EnvValueSchema)
    .refine((e) => Object.keys(e).length <= 200, 'at most 200 variables')
    .openapi({ example: { ADMIN_PASSWORD: { secret: 'db.password' }, TZ: 'UTC' } }),
  secret_refs: z.array(z.string().regex(SECRET_NAME, 'must be a secret name (A–Z, a–z, 0–9, _ . -)')).max(100),
  desired_state: z.enum(['running', 'stopped']).openapi({ description: 'Default running' }),
  host_ports: z.array(HostPortSchema).max(100),
};
