/** The local copy of the Hub's catalog, for both roles. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../context';
import { getTemplate, listCatalog } from '../../domain/catalog';
import type { Router } from '../hono';
import { BEARER, errors, json, PageQuerySchema, PaginationSchema } from '../schemas';

const TemplateSchema = z
  .object({ id: z.string(), slug: z.string(), name: z.string(), description: z.string(), version: z.string(), category_slug: z.string(), updated_at: z.string() })
  .catchall(z.unknown())
  .openapi('CatalogTemplate', { description: 'The Hub’s Template object as synced (all its fields)' });

const ListQuerySchema = PageQuerySchema.extend({
  search: z.string().max(200).optional().openapi({ description: 'Case-insensitive match on name or description' }),
  category: z.string().max(200).optional().openapi({ description: 'Category slug' }),
});

const list = createRoute({
  method: 'get',
  path: '/api/v1/catalog/templates',
  tags: ['catalog'],
  security: BEARER,
  request: { query: ListQuerySchema },
  responses: { 200: json(z.object({ templates: z.array(TemplateSchema), pagination: PaginationSchema }), 'Templates of the local copy'), ...errors(400, 401) },
});

const get = createRoute({
  method: 'get',
  path: '/api/v1/catalog/templates/{slug}',
  tags: ['catalog'],
  security: BEARER,
  request: { params: z.object({ slug: z.string().max(200).openapi({ param: { name: 'slug', in: 'path' } }) }) },
  responses: { 200: json(TemplateSchema, 'One template'), ...errors(401, 404) },
});

export function registerCatalogRoutes(app: Router, core: CoreContext) {
  app.openapi(list, async (c) => c.json(await listCatalog(core.db, c.req.valid('query')), 200));
  app.openapi(get, async (c) => c.json(await getTemplate(core.db, c.req.valid('param').slug), 200));
}
