/** DELETE /api/v1/deployments/{id}?volumes=true (admin). */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { deleteDeployment } from '../../../domain/deployments';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema } from '../../schemas';

const QuerySchema = z.object({
  volumes: z
    .enum(['true', 'false'], { error: 'volumes must be true or false' })
    .default('false')
    .openapi({ description: 'Remove the deployment’s named volumes too (their data is lost); needs the engine' }),
});

const route = createRoute({
  method: 'delete',
  path: '/api/v1/deployments/{id}',
  tags: ['deployments'],
  operationId: 'deleteDeployment',
  summary: 'Delete a deployment',
  security: BEARER,
  description:
    'Admin. Removes the deployment and its containers. Its named volumes are kept unless volumes=true (503 when the engine is unreachable then).',
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema, query: QuerySchema },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404, 503) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    const volumes = c.req.valid('query').volumes === 'true';
    await deleteDeployment(core.db, id, actor(c), { volumes });
    core.log.info({ actor: actorLabel(caller(c)), deployment_id: id, volumes }, 'deployment deleted');
    return c.body(null, 204);
  });
