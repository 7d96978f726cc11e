/** GET /api/v1/deployments (both roles). */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listDeployments } from '../../../domain/deployments';
import type { Router } from '../../hono';
import { BEARER, errors, json, PageQuerySchema, PaginationSchema } from '../../schemas';
import { DeploymentSchema } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/api/v1/deployments',
  tags: ['deployments'],
  operationId: 'listDeployments',
  summary: 'List the deployments',
  security: BEARER,
  request: { query: PageQuerySchema },
  responses: {
    200: json(z.object({ deployments: z.array(DeploymentSchema), pagination: PaginationSchema }), 'Deployments'),
    ...errors(400, 401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await listDeployments(core.db, c.req.valid('query')), 200));
