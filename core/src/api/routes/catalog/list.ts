/** GET /api/v1/catalog/templates (both roles): the local copy of the Hub's catalog, searchable and paged. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listCatalog } from '../../../domain/catalog';
import type { Router } from '../../hono';
import { BEARER, errors, json, PageQuerySchema, PaginationSchema } from '../../schemas';
import { TemplateSchema } from './schemas';

const ListQuerySchema = PageQuerySchema.extend({
  search: z.string().max(200).optional().openapi({ description: 'Case-insensitive match on name or description' }),
  category: z.string().max(200).optional().openapi({ description: 'Category slug' }),
});

const route = createRoute({
  method: 'get',
  path: '/api/v1/catalog/templates',
  tags: ['catalog'],
  operationId: 'listCatalogTemplates',
  summary: 'List and search the local catalog copy',
  security: BEARER,
  request: { query: ListQuerySchema },
  responses: {
    200: json(
      z.object({ templates: z.array(TemplateSchema), pagination: PaginationSchema }),
      'Templates of the local copy',
    ),
    ...errors(400, 401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await listCatalog(core.db, c.req.valid('query')), 200));
