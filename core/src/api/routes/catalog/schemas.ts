/** The Hub's Template object as Core serves it from its copy. */
import { z } from '@hono/zod-openapi';

export const TemplateSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    version: z.string(),
    category_slug: z.string(),
    updated_at: z.string(),
  })
  .catchall(z.unknown())
  .openapi('CatalogTemplate', { description: 'The Hub’s Template object as synced (all its fields)' });
