/** POST /api/v1/tokens/{id}/reissue (admin): a new secret for the same id and role; the old one dies at once. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { reissueMachineToken } from '../../../domain/machineTokens';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema, json } from '../../schemas';
import { IssuedTokenSchema } from './schemas';

const route = createRoute({
  method: 'post',
  path: '/api/v1/tokens/{id}/reissue',
  tags: ['tokens'],
  operationId: 'reissueMachineToken',
  summary: 'Reissue a machine token with a new secret',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: {
    200: json(IssuedTokenSchema, 'New secret, same id; the old secret no longer works'),
    ...errors(401, 403, 404, 409),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const token = await reissueMachineToken(core.db, c.req.valid('param').id, actor(c));
    core.log.info({ actor: actorLabel(caller(c)), token_id: token.id }, 'machine token re-issued');
    return c.json(token, 200);
  });
