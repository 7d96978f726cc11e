/** DELETE /api/v1/tokens/{id} (admin): revoke, for good. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { revokeMachineToken } from '../../../domain/machineTokens';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema } from '../../schemas';

const route = createRoute({
  method: 'delete',
  path: '/api/v1/tokens/{id}',
  tags: ['tokens'],
  operationId: 'revokeMachineToken',
  summary: 'Revoke a machine token',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Revoked (final)' }, ...errors(401, 403, 404) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    await revokeMachineToken(core.db, id, actor(c));
    core.log.info({ actor: actorLabel(caller(c)), token_id: id }, 'machine token revoked');
    return c.body(null, 204);
  });
