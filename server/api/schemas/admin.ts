/** Wire shapes of the admin API and the row → JSON mappings. */
import { z } from 'zod';
import type { AdminTemplateRow } from '../../domain/catalog/templateAdmin';
import type { TemplateValues } from '../../domain/catalog/templateAdmin';
import type { AuditListEntry } from '../../domain/audit';
import { ORG_ROLES, ORG_STATUSES, ORG_TIERS, KEY_STATUSES, PLATFORM_ROLES } from './account';
import { CategorySchema, TemplateSchema, toCategory, toTemplate } from './catalog';
import { CREDENTIALS_MASK, type CreateTemplateInput, type UpdateTemplateInput } from './templateInput';

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));

export const TolerationSchema = z.object({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.number().int().optional(),
});

export const AdminTemplateSchema = TemplateSchema.extend({
  registry_url: z.string(),
  registry_credentials: z
    .string()
    .nullable()
    .describe(`"${CREDENTIALS_MASK}" when credentials are stored, null when none; never the secret`),
  secret_refs: z.array(z.string()),
  command: z.array(z.string()),
  tolerations: z.array(TolerationSchema),
  icon_url: z.string(),
  org_id: z.uuid().nullable(),
  created_at: z.string(),
});

export function toAdminTemplate(row: AdminTemplateRow): z.infer<typeof AdminTemplateSchema> {
  return {
    ...toTemplate(row),
    registry_url: row.registryUrl,
    registry_credentials: row.hasRegistryCredentials ? CREDENTIALS_MASK : null,
    secret_refs: row.secretRefs,
    command: row.command,
    tolerations: row.tolerations,
    icon_url: row.iconUrl,
    org_id: row.orgId,
    created_at: iso(row.createdAt),
  };
}

const FIELD_MAP = {
  name: 'name',
  slug: 'slug',
  description: 'description',
  version: 'version',
  kind: 'kind',
  category_id: 'categoryId',
  org_id: 'orgId',
  image_name: 'imageName',
  image_tag: 'imageTag',
  cpu_request: 'cpuRequest',
  memory_request: 'memoryRequest',
  gpu_count: 'gpuCount',
  vram_request: 'vramRequest',
  concurrent_jobs: 'concurrentJobs',
  env: 'env',
  env_schema: 'envSchema',
  ports: 'ports',
  volume_mounts: 'volumeMounts',
  node_selector: 'nodeSelector',
  required_network_types: 'requiredNetworkTypes',
  tags: 'tags',
  is_public: 'isPublic',
  is_featured: 'isFeatured',
  min_tier: 'minTier',
  documentation: 'documentation',
  registry_url: 'registryUrl',
  registry_credentials: 'registryCredentials',
  secret_refs: 'secretRefs',
  command: 'command',
  tolerations: 'tolerations',
  icon_url: 'iconUrl',
} as const satisfies Record<Exclude<keyof CreateTemplateInput, never>, keyof TemplateValues>;

/** Wire fields → domain values; absent fields stay absent (partial update), the credentials mask means "keep". */
export function templateValuesFrom(
  input: Partial<CreateTemplateInput> | Omit<UpdateTemplateInput, 'id'>,
): TemplateValues {
  const out: Record<string, unknown> = {};
  for (const [wire, value] of Object.entries(input)) {
    if (value === undefined || !(wire in FIELD_MAP)) continue;
    if (wire === 'registry_credentials' && value === CREDENTIALS_MASK) continue;
    out[FIELD_MAP[wire as keyof typeof FIELD_MAP]] = value;
  }
  return out as TemplateValues;
}

export const AdminCategorySchema = CategorySchema.extend({
  access_count: z.number().int().describe('Organizations holding an access grant'),
  created_at: z.string(),
  updated_at: z.string(),
});

export function toAdminCategory(
  row: Parameters<typeof toCategory>[0] & { accessCount: number; createdAt: Date; updatedAt: Date },
): z.infer<typeof AdminCategorySchema> {
  return {
    ...toCategory(row),
    access_count: Number(row.accessCount),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export const GrantSchema = z.object({
  id: z.uuid(),
  org_id: z.uuid(),
  org_name: z.string(),
  org_slug: z.string(),
  category_id: z.uuid(),
  category_name: z.string(),
  category_slug: z.string(),
  created_at: z.string(),
});

export function toGrant(row: {
  id: string;
  orgId: string;
  orgName: string;
  orgSlug: string;
  categoryId: string;
  categoryName: string;
  categorySlug: string;
  createdAt: Date;
}): z.infer<typeof GrantSchema> {
  return {
    id: row.id,
    org_id: row.orgId,
    org_name: row.orgName,
    org_slug: row.orgSlug,
    category_id: row.categoryId,
    category_name: row.categoryName,
    category_slug: row.categorySlug,
    created_at: iso(row.createdAt),
  };
}

export const AdminUserSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: z.enum(PLATFORM_ROLES),
  created_at: z.string(),
  organization: z
    .object({
      id: z.uuid(),
      name: z.string(),
      slug: z.string(),
      role: z.enum(ORG_ROLES),
      status: z.enum(ORG_STATUSES),
      tier: z.enum(ORG_TIERS),
    })
    .nullable(),
});

export function toAdminUser(row: {
  id: string;
  email: string;
  name: string;
  role: (typeof PLATFORM_ROLES)[number];
  createdAt: Date;
  orgId: string | null;
  orgRole: (typeof ORG_ROLES)[number] | null;
  orgName: string | null;
  orgSlug: string | null;
  orgStatus: (typeof ORG_STATUSES)[number] | null;
  orgTier: (typeof ORG_TIERS)[number] | null;
}): z.infer<typeof AdminUserSchema> {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    created_at: iso(row.createdAt),
    organization:
      row.orgId && row.orgName !== null && row.orgSlug !== null && row.orgStatus && row.orgTier
        ? {
            id: row.orgId,
            name: row.orgName,
            slug: row.orgSlug,
            role: row.orgRole ?? 'member',
            status: row.orgStatus,
            tier: row.orgTier,
          }
        : null,
  };
}

export const AdminOrganizationSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  status: z.enum(ORG_STATUSES).describe('active | suspended (instance keys and tokens refused with 403)'),
  tier: z.enum(ORG_TIERS).describe('free | pro | enterprise'),
  member_count: z.number().int(),
  api_key_count: z.number().int().describe('Active (not revoked) instance keys'),
  created_at: z.string(),
  updated_at: z.string(),
});

export function toAdminOrganization(row: {
  id: string;
  name: string;
  slug: string;
  status: (typeof ORG_STATUSES)[number];
  tier: (typeof ORG_TIERS)[number];
  memberCount: number;
  apiKeyCount: number;
  createdAt: Date;
  updatedAt: Date;
}): z.infer<typeof AdminOrganizationSchema> {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    status: row.status,
    tier: row.tier,
    member_count: Number(row.memberCount),
    api_key_count: Number(row.apiKeyCount),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export const AdminApiKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  key_prefix: z.string(),
  status: z.enum(KEY_STATUSES),
  org_id: z.uuid(),
  org_name: z.string(),
  org_slug: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export function toAdminApiKey(row: {
  id: string;
  name: string;
  keyPrefix: string;
  status: (typeof KEY_STATUSES)[number];
  orgId: string;
  orgName: string;
  orgSlug: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): z.infer<typeof AdminApiKeySchema> {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.keyPrefix,
    status: row.status,
    org_id: row.orgId,
    org_name: row.orgName,
    org_slug: row.orgSlug,
    created_at: iso(row.createdAt),
    last_used_at: isoOrNull(row.lastUsedAt),
    revoked_at: isoOrNull(row.revokedAt),
  };
}

export const AuditEntrySchema = z.object({
  id: z.number().int(),
  actor_type: z.enum(['user', 'instance', 'system']),
  actor_id: z.string().nullable(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string().nullable(),
  org_id: z.uuid().nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  actor_name: z
    .string()
    .nullable()
    .describe("The actor's name now: a user's name (or email), an instance key's name; null for the system"),
  actor_email: z.string().nullable().describe("A user actor's email"),
  actor_org_id: z.uuid().nullable().describe('The organization of an acting instance key'),
  actor_deleted: z.boolean().describe('The actor no longer exists'),
  target_name: z
    .string()
    .nullable()
    .describe("The target's name now, or the name it was recorded with when it no longer exists"),
  target_email: z.string().nullable().describe("A user target's email"),
  target_deleted: z.boolean().describe('The target no longer exists'),
  org_name: z.string().nullable().describe('The name of the organization the change concerns'),
});

export function toAuditEntry(row: AuditListEntry): z.infer<typeof AuditEntrySchema> {
  return {
    id: Number(row.id),
    actor_type: row.actorType,
    actor_id: row.actorId,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    org_id: row.orgId,
    details: row.details,
    created_at: iso(row.createdAt),
    actor_name: row.actorName,
    actor_email: row.actorEmail,
    actor_org_id: row.actorOrgId,
    actor_deleted: row.actorDeleted,
    target_name: row.targetName,
    target_email: row.targetEmail,
    target_deleted: row.targetDeleted,
    org_name: row.orgName,
  };
}
