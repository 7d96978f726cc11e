/**
 * Input validation of the admin catalog writes (templates, categories). Every field of the spec's
 * Template table with its type, plus the admin-only fields, with the choices the spec leaves open:
 *
 *  slug               lowercase letters, digits and hyphens, 1–100, starting and ending with a letter or digit;
 *                     "updates" is reserved for templates (it is the path /catalog/templates/updates)
 *  kind               lowercase identifier (a–z, 0–9, hyphen), default "deployment"
 *  cpu_request        "" or a CPU quantity: "500m", "1", "0.5"
 *  memory_request,
 *  vram_request       "" or a quantity with a unit suffix: "512Mi", "2Gi", "1.5G" (Ki Mi Gi Ti Pi Ei k M G T P E)
 *  ports              containerPort 1–65535, protocol TCP|UDP|SCTP (default TCP), no duplicate port/protocol
 *  env                names are environment variable names ([A-Za-z_][A-Za-z0-9_]*), unique; same for env_schema
 *  min_tier           free | pro | enterprise
 *  registry_url,
 *  icon_url           "" or an http(s) URL
 *  registry_credentials  a string (e.g. "user:token"), encrypted at rest; null removes it; never returned in clear
 *  secret_refs        names of secrets on the instance, unique
 *  command            the container command, a list of strings
 *  tolerations        Kubernetes tolerations {key?, operator? Exists|Equal, value?, effect?, tolerationSeconds?}
 */
import { z } from 'zod';
import { jsonBool, jsonInt } from './body';

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
export const catalogSlug = () =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .regex(
      SLUG_RE,
      'may contain only lowercase letters, digits and hyphens, and must start and end with a letter or digit',
    );

const templateSlug = () => catalogSlug().refine((s) => s !== 'updates', '"updates" is reserved');

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const nonEmpty = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const QUANTITY_RE = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)$/;
const quantity = () =>
  z
    .string()
    .max(32)
    .refine((v) => v === '' || QUANTITY_RE.test(v), 'must be a quantity with a unit suffix, e.g. 512Mi or 2Gi');
const cpuQuantity = () =>
  z
    .string()
    .max(32)
    .refine((v) => v === '' || /^(\d+(\.\d+)?|\d+m)$/.test(v), 'must be a CPU quantity, e.g. 500m, 1 or 0.5');

const httpUrl = () =>
  z
    .string()
    .max(2000, 'must be at most 2000 characters')
    .refine((v) => {
      if (v === '') return true;
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'must be an http(s) URL or empty');

const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envName = () =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(255)
    .regex(ENV_NAME_RE, 'must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)');

/** Adds an issue at [index, key] for every repeated value. */
function uniqueBy<T>(what: string, keyOf: (item: T) => string, field?: string) {
  return (items: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const k = keyOf(item);
      if (seen.has(k))
        ctx.addIssue({ code: 'custom', path: field ? [i, field] : [i], message: `duplicate ${what} "${k}"` });
      seen.add(k);
    });
  };
}

export const EnvVarInput = z.strictObject({ name: envName(), value: text(10_000) });
export const EnvSchemaEntryInput = z.strictObject({
  name: envName(),
  required: jsonBool().default(false),
  default_value: text(10_000).default(''),
  description: text(2000).default(''),
});
export const PortInput = z.strictObject({
  containerPort: jsonInt(1, 65535),
  protocol: z.enum(['TCP', 'UDP', 'SCTP']).default('TCP'),
});
export const VolumeMountInput = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be a DNS label (lowercase letters, digits, hyphens)'),
  mountPath: z.string().min(1).max(4096).startsWith('/', 'must be an absolute path'),
});
export const TolerationInput = z
  .strictObject({
    key: z.string().max(253).optional(),
    operator: z.enum(['Exists', 'Equal']).optional(),
    value: z.string().max(63).optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
    tolerationSeconds: jsonInt(0, 1_000_000_000).optional(),
  })
  .refine((t) => !(t.operator === 'Exists' && t.value), {
    message: 'value must be empty when operator is Exists',
    path: ['value'],
  });

/** Every writable template field, none required and without defaults (create adds requirement, the DB the defaults). */
export const templateFields = {
  name: nonEmpty(200),
  slug: templateSlug(),
  description: text(5000),
  version: text(100),
  kind: z
    .string()
    .min(1)
    .max(50)
    .regex(/^[a-z][a-z0-9-]*$/, 'must be a lowercase identifier, e.g. deployment'),
  category_id: z.uuid(),
  org_id: z.uuid().nullable().describe('Owning organization; null for a platform template'),
  image_name: z
    .string()
    .min(1, 'must not be empty')
    .max(255)
    .regex(
      /^[a-z0-9]([a-z0-9._\-/:]*[a-z0-9])?$/,
      'must be an image name such as nginx or registry.example.com/team/app, without tag',
    ),
  image_tag: z
    .string()
    .max(128)
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'must be an image tag (letters, digits, _ . -)'),
  cpu_request: cpuQuantity(),
  memory_request: quantity(),
  gpu_count: jsonInt(0, 64),
  vram_request: quantity(),
  concurrent_jobs: jsonInt(1, 1000),
  env: z
    .array(EnvVarInput)
    .max(200)
    .superRefine(uniqueBy('environment variable', (e) => e.name, 'name')),
  env_schema: z
    .array(EnvSchemaEntryInput)
    .max(200)
    .superRefine(uniqueBy('environment variable', (e) => e.name, 'name')),
  ports: z
    .array(PortInput)
    .max(100)
    .superRefine(uniqueBy('port', (p) => `${p.containerPort}/${p.protocol}`, 'containerPort')),
  volume_mounts: z
    .array(VolumeMountInput)
    .max(100)
    .superRefine(uniqueBy('mount path', (v) => v.mountPath, 'mountPath')),
  node_selector: z
    .record(z.string().min(1).max(253), z.string().max(63))
    .refine((r) => Object.keys(r).length <= 50, 'at most 50 entries'),
  required_network_types: z
    .array(z.string().regex(/^[a-z][a-z0-9-]{0,49}$/, 'must be a lowercase identifier, e.g. public or mesh'))
    .max(20)
    .superRefine(uniqueBy('network type', (s) => s)),
  tags: z
    .array(z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'))
    .max(50)
    .superRefine(uniqueBy('tag', (s) => s)),
  is_public: jsonBool(),
  is_featured: jsonBool(),
  min_tier: z.enum(['free', 'pro', 'enterprise']),
  documentation: text(100_000),
  registry_url: httpUrl(),
  registry_credentials: z
    .string()
    .min(1, 'must not be empty (send null to remove the credentials)')
    .max(10_000)
    .nullable()
    .describe(
      'Secret; stored encrypted, returned only masked. null removes it; the mask "********" keeps the stored value.',
    ),
  secret_refs: z
    .array(z.string().regex(/^[A-Za-z0-9._-]{1,253}$/, 'must be a secret name (letters, digits, . _ -)'))
    .max(50)
    .superRefine(uniqueBy('secret', (s) => s)),
  command: z.array(z.string().max(4096)).max(100),
  tolerations: z.array(TolerationInput).max(50),
  icon_url: httpUrl(),
};

const { name, slug, category_id, image_name, ...optionalFields } = templateFields;
const optional = Object.fromEntries(Object.entries(optionalFields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof optionalFields]: z.ZodOptional<(typeof optionalFields)[K]>;
};

export const CreateTemplateInput = z.strictObject({ name, slug, category_id, image_name, ...optional });
export type CreateTemplateInput = z.infer<typeof CreateTemplateInput>;

export const UpdateTemplateInput = z.strictObject({
  id: z.uuid(),
  name: name.optional(),
  slug: slug.optional(),
  category_id: category_id.optional(),
  image_name: image_name.optional(),
  ...optional,
});
export type UpdateTemplateInput = z.infer<typeof UpdateTemplateInput>;

export const categoryFields = {
  name: nonEmpty(100),
  slug: catalogSlug(),
  description: text(2000),
  icon: text(100),
  sort_order: jsonInt(-1_000_000, 1_000_000),
  is_private: jsonBool(),
};

export const CreateCategoryInput = z.strictObject({
  name: categoryFields.name,
  slug: categoryFields.slug,
  description: categoryFields.description.optional(),
  icon: categoryFields.icon.optional(),
  sort_order: categoryFields.sort_order
    .optional()
    .describe('Lower comes first; when left out, the new category sorts after every existing one'),
  is_private: categoryFields.is_private.optional(),
});

export const UpdateCategoryInput = z.strictObject({
  id: z.uuid(),
  name: categoryFields.name.optional(),
  slug: categoryFields.slug.optional(),
  description: categoryFields.description.optional(),
  icon: categoryFields.icon.optional(),
  sort_order: categoryFields.sort_order.optional(),
  is_private: categoryFields.is_private.optional(),
});

/** The value shown for stored registry credentials; sending it back on update keeps them unchanged. */
export const CREDENTIALS_MASK = '********';
