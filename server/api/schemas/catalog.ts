/** Response shapes of the catalog (spec: "Template", "Category") and the row → JSON mapping. */
import { z } from 'zod';
import type { TemplateRow } from '../../domain/catalog/templateRow';

export const EnvVarSchema = z.object({ name: z.string(), value: z.string() });
export const EnvSchemaEntrySchema = z.object({
  name: z.string(),
  required: z.boolean(),
  default_value: z.string(),
  description: z.string(),
});
export const PortSchema = z.object({ containerPort: z.number().int(), protocol: z.string() });
export const VolumeMountSchema = z.object({ name: z.string(), mountPath: z.string() });

export const TemplateSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  version: z.string(),
  kind: z.string(),
  category_id: z.uuid(),
  category_name: z.string(),
  category_slug: z.string(),
  category_icon: z.string(),
  image_name: z.string(),
  image_tag: z.string(),
  cpu_request: z.string(),
  memory_request: z.string(),
  gpu_count: z.number().int(),
  vram_request: z.string(),
  concurrent_jobs: z.number().int(),
  env: z.array(EnvVarSchema),
  env_schema: z.array(EnvSchemaEntrySchema),
  ports: z.array(PortSchema),
  volume_mounts: z.array(VolumeMountSchema),
  node_selector: z.record(z.string(), z.string()),
  required_network_types: z.array(z.string()),
  tags: z.array(z.string()),
  is_public: z.boolean(),
  is_featured: z.boolean(),
  min_tier: z.string(),
  download_count: z.number().int(),
  documentation: z.string(),
  updated_at: z.string().describe('ISO 8601'),
});
export type Template = z.infer<typeof TemplateSchema>;

export function toTemplate(row: TemplateRow): Template {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    version: row.version,
    kind: row.kind,
    category_id: row.categoryId,
    category_name: row.categoryName,
    category_slug: row.categorySlug,
    category_icon: row.categoryIcon,
    image_name: row.imageName,
    image_tag: row.imageTag,
    cpu_request: row.cpuRequest,
    memory_request: row.memoryRequest,
    gpu_count: row.gpuCount,
    vram_request: row.vramRequest,
    concurrent_jobs: row.concurrentJobs,
    env: row.env,
    env_schema: row.envSchema,
    ports: row.ports,
    volume_mounts: row.volumeMounts,
    node_selector: row.nodeSelector,
    required_network_types: row.requiredNetworkTypes,
    tags: row.tags,
    is_public: row.isPublic,
    is_featured: row.isFeatured,
    min_tier: row.minTier,
    download_count: Number(row.downloadCount),
    documentation: row.documentation,
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

export const CategorySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  icon: z.string(),
  sort_order: z.number().int(),
  is_private: z.boolean(),
  template_count: z.number().int(),
});
export type Category = z.infer<typeof CategorySchema>;

export function toCategory(row: {
  id: string;
  name: string;
  slug: string;
  description: string;
  icon: string;
  sortOrder: number;
  isPrivate: boolean;
  templateCount: number;
}): Category {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    icon: row.icon,
    sort_order: row.sortOrder,
    is_private: row.isPrivate,
    template_count: Number(row.templateCount),
  };
}
