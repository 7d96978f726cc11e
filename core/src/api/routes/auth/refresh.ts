/** POST /api/v1/auth/refresh (public): rotates a refresh token. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { unauthenticated } from '../../../domain/errors';
import { refresh } from '../../../domain/sessions';
import { clearRefreshCookie, refreshTokenOf, setRefreshCookie, wantsCookie } from './cookie';
import { TEMPORARY_ADMIN_WARNING } from '../../errors';
import type { Router } from '../../hono';
import { errors, json, jsonBody } from '../../schemas';
import { RefreshSchema, SessionSchema } from './schemas';

const route = createRoute({
  method: 'post',
  path: '/api/v1/auth/refresh',
  tags: ['auth'],
  operationId: 'refreshSession',
  security: [],
  summary: 'Rotate a refresh token, from the body or the web frontend’s cookie (public)',
  request: { body: jsonBody(RefreshSchema) },
  responses: { 200: json(SessionSchema, 'New tokens'), ...errors(400, 401, 403) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const token = refreshTokenOf(c, core, c.req.valid('json').refresh_token);
    let session;
    try {
      if (!token) throw unauthenticated('no session: sign in');
      session = await refresh(core, token);
    } catch (err) {
      // A refused cookie is useless from now on: the browser drops it.
      if (wantsCookie(c)) clearRefreshCookie(c, core);
      throw err;
    }
    if (session.user.kind === 'temporary_admin') c.header('X-Core-Warning', TEMPORARY_ADMIN_WARNING);
    if (!wantsCookie(c)) return c.json(session, 200);
    const { refresh_token, ...rest } = session;
    setRefreshCookie(c, core, refresh_token);
    return c.json(rest, 200);
  });
