/** GET /api/v1/users (both roles). */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listUsers } from '../../../domain/users';
import type { Router } from '../../hono';
import { BEARER, errors, json, PageQuerySchema, PaginationSchema } from '../../schemas';
import { UserSchema } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/api/v1/users',
  tags: ['users'],
  operationId: 'listUsers',
  summary: 'List the users',
  security: BEARER,
  request: { query: PageQuerySchema },
  responses: {
    200: json(z.object({ users: z.array(UserSchema), pagination: PaginationSchema }), 'Users'),
    ...errors(400, 401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await listUsers(core.db, c.req.valid('query')), 200));
