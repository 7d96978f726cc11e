/** DELETE /api/v1/users/{id} (admin); the last admin cannot be deleted; an OIDC person is blocked until re-admitted. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { deleteUser } from '../../../domain/users';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema } from '../../schemas';

const route = createRoute({
  method: 'delete',
  path: '/api/v1/users/{id}',
  tags: ['users'],
  operationId: 'deleteUser',
  summary: 'Delete a user',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Deleted' }, ...errors(401, 403, 404, 409) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    await deleteUser(core.db, id, actor(c));
    core.log.info({ actor: actorLabel(caller(c)), user_id: id }, 'user deleted');
    return c.body(null, 204);
  });
