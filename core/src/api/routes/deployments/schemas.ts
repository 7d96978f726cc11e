/** Shapes of the deployment routes. */
import { z } from '@hono/zod-openapi';
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
};
