/** GET /api/v1/deployments/{id} (both roles). */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { getDeployment } from '../../../domain/deployments';
import type { Router } from '../../hono';
import { BEARER, errors, IdParamSchema, json } from '../../schemas';
import { DeploymentSchema } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/api/v1/deployments/{id}',
  tags: ['deployments'],
  operationId: 'getDeployment',
  summary: 'Get a deployment',
  security: BEARER,
  request: { params: IdParamSchema },
  responses: { 200: json(DeploymentSchema, 'One deployment'), ...errors(401, 404) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await getDeployment(core.db, c.req.valid('param').id), 200));
