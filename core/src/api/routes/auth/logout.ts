/** POST /api/v1/auth/logout (public): ends the session of a refresh token. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { logout } from '../../../domain/sessions';
import type { Router } from '../../hono';
import { errors, jsonBody } from '../../schemas';
import { RefreshSchema } from './schemas';

const route = createRoute({
  method: 'post',
  path: '/api/v1/auth/logout',
  tags: ['auth'],
  operationId: 'deleteSession',
  security: [],
  summary: 'End the session of a refresh token (public)',
  request: { body: jsonBody(RefreshSchema) },
  responses: { 204: { description: 'Signed out' }, ...errors(400) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    await logout(core.db, c.req.valid('json').refresh_token);
    return c.body(null, 204);
  });
