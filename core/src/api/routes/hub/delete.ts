/** DELETE /api/v1/settings/hub (admin): disconnect; the local catalog copy is dropped. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors } from '../../schemas';

const route = createRoute({
  method: 'delete',
  path: '/api/v1/settings/hub',
  tags: ['hub'],
  operationId: 'disconnectHub',
  summary: 'Disconnect from the Hub',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  responses: { 204: { description: 'Disconnected; the local catalog copy is dropped' }, ...errors(401, 403, 409) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    await core.hub.disconnect(actor(c));
    core.log.info({ actor: actorLabel(caller(c)) }, 'hub disconnected');
    return c.body(null, 204);
  });
