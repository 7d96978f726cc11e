/** DELETE /api/v1/secrets/{name} (admin). */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { deleteSecret } from '../../../domain/secrets';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors } from '../../schemas';
import { NameParamSchema } from './schemas';

const route = createRoute({
  method: 'delete',
  path: '/api/v1/secrets/{name}',
  tags: ['secrets'],
  operationId: 'deleteSecret',
  summary: 'Delete a secret',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: NameParamSchema },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { name } = c.req.valid('param');
    await deleteSecret(core.db, name, actor(c));
    core.log.info({ actor: actorLabel(caller(c)), secret_name: name }, 'secret deleted');
    return c.body(null, 204);
  });
