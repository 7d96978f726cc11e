/** GET /api/v1/users/{id} (both roles). */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { notFound } from '../../../domain/errors';
import { getUser, publicUser } from '../../../domain/users';
import type { Router } from '../../hono';
import { BEARER, errors, IdParamSchema, json } from '../../schemas';
import { UserSchema } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/api/v1/users/{id}',
  tags: ['users'],
  operationId: 'getUser',
  summary: 'Get a user',
  security: BEARER,
  request: { params: IdParamSchema },
  responses: { 200: json(UserSchema, 'The user'), ...errors(401, 404) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const user = await getUser(core.db, c.req.valid('param').id);
    if (!user) throw notFound('user');
    return c.json(publicUser(user), 200);
  });
