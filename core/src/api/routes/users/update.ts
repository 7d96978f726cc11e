/** PUT /api/v1/users/{id} (admin): partial update; the last admin cannot be demoted. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { updateUser } from '../../../domain/users';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema, json, jsonBody, RoleSchema } from '../../schemas';
import { email, name, password, UserSchema } from './schemas';

const UpdateUserSchema = z
  .strictObject({
    email: email.optional(),
    name: name.optional(),
    role: RoleSchema.optional(),
    password: password.optional(),
  })
  .openapi('UpdateUser');

const route = createRoute({
  method: 'put',
  path: '/api/v1/users/{id}',
  tags: ['users'],
  operationId: 'updateUser',
  summary: 'Update a user',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema, body: jsonBody(UpdateUserSchema) },
  responses: { 200: json(UserSchema, 'Updated'), ...errors(400, 401, 403, 404, 409) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const patch = c.req.valid('json');
    const user = await updateUser(core.db, c.req.valid('param').id, patch, actor(c));
    core.log.info({ actor: actorLabel(caller(c)), user_id: user.id, fields: Object.keys(patch) }, 'user updated');
    return c.json(user, 200);
  });
