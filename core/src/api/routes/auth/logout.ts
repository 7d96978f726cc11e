/** POST /api/v1/auth/logout (public): ends the session of a refresh token. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { logout } from '../../../domain/sessions';
import { clearRefreshCookie, refreshTokenOf, wantsCookie } from './cookie';
import type { Router } from '../../hono';
import { errors, jsonBody } from '../../schemas';
import { RefreshSchema } from './schemas';

const route = createRoute({
  method: 'post',
  path: '/api/v1/auth/logout',
  tags: ['auth'],
  operationId: 'deleteSession',
  security: [],
  summary: 'End the session of a refresh token, from the body or the web frontend’s cookie (public)',
  request: { body: jsonBody(RefreshSchema) },
  responses: { 204: { description: 'Signed out' }, ...errors(400, 403) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const token = refreshTokenOf(c, core, c.req.valid('json').refresh_token);
    if (token) await logout(core.db, token);
    if (wantsCookie(c)) clearRefreshCookie(c, core);
    return c.body(null, 204);
  });
