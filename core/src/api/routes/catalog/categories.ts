/** GET /api/v1/catalog/categories (both roles): the categories of the local copy, with their template counts. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listCategories } from '../../../domain/catalog';
import type { Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';

const CategorySchema = z
  .object({ slug: z.string(), name: z.string(), count: z.number().int() })
  .openapi('CatalogCategory');

const route = createRoute({
  method: 'get',
  path: '/api/v1/catalog/categories',
  tags: ['catalog'],
  operationId: 'listCatalogCategories',
  summary: 'List the categories of the local catalog copy',
  security: BEARER,
  responses: {
    200: json(
      z.object({ categories: z.array(CategorySchema) }),
      'Categories by name, with how many templates each holds',
    ),
    ...errors(401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json({ categories: await listCategories(core.db) }, 200));
