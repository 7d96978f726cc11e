/** DELETE /api/v1/deployments/{id} (admin). */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { deleteDeployment } from '../../../domain/deployments';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema } from '../../schemas';

const route = createRoute({
  method: 'delete',
  path: '/api/v1/deployments/{id}',
  tags: ['deployments'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Deleted' }, ...errors(401, 403, 404) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    await deleteDeployment(core.db, id, actor(c));
    core.log.info({ actor: actorLabel(caller(c)), deployment_id: id }, 'deployment deleted');
    return c.body(null, 204);
  });
