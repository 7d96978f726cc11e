/** GET /api/v1/catalog/templates/{slug} (both roles): one template of the local copy; 404 when it is not there. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { getTemplate } from '../../../domain/catalog';
import type { Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';
import { TemplateSchema } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/api/v1/catalog/templates/{slug}',
  tags: ['catalog'],
  operationId: 'getCatalogTemplate',
  summary: 'Get one template of the local catalog copy',
  security: BEARER,
  request: {
    params: z.object({
      slug: z
        .string()
        .max(200)
        .openapi({ param: { name: 'slug', in: 'path' } }),
    }),
  },
  responses: { 200: json(TemplateSchema, 'One template'), ...errors(401, 404) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await getTemplate(core.db, c.req.valid('param').slug), 200));
