/** DELETE /api/v1/blocked-identities/{id} (admin): re-admit a removed OIDC person (their next sign-in provisions them). */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { readmitIdentity } from '../../../domain/users';
import { caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema } from '../../schemas';

const route = createRoute({
  method: 'delete',
  path: '/api/v1/blocked-identities/{id}',
  tags: ['users'],
  operationId: 'readmitBlockedIdentity',
  summary: 'Re-admit a removed OIDC person',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Re-admitted' }, ...errors(401, 403, 404) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    await readmitIdentity(core.db, id);
    core.log.info({ actor: actorLabel(caller(c)), blocked_id: id }, 'removed person re-admitted');
    return c.body(null, 204);
  });
