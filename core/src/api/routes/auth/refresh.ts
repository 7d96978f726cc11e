/** POST /api/v1/auth/refresh (public): rotates a refresh token. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { refresh } from '../../../domain/sessions';
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
  summary: 'Rotate a refresh token (public)',
  request: { body: jsonBody(RefreshSchema) },
  responses: { 200: json(SessionSchema, 'New tokens'), ...errors(400, 401) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const session = await refresh(core, c.req.valid('json').refresh_token);
    if (session.user.kind === 'temporary_admin') c.header('X-Core-Warning', TEMPORARY_ADMIN_WARNING);
    return c.json(session, 200);
  });
