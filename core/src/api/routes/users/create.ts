/** POST /api/v1/users (admin): a local user. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { createLocalUser } from '../../../domain/users';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json, jsonBody, RoleSchema } from '../../schemas';
import { email, name, password, UserSchema } from './schemas';

const CreateUserSchema = z
  .strictObject({ email, password, role: RoleSchema, name: name.optional() })
  .openapi('CreateUser');

const route = createRoute({
  method: 'post',
  path: '/api/v1/users',
  tags: ['users'],
  operationId: 'createUser',
  summary: 'Create a local user',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(CreateUserSchema) },
  responses: { 201: json(UserSchema, 'Created'), ...errors(400, 401, 403, 409) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const user = await createLocalUser(core.db, c.req.valid('json'), actor(c));
    core.log.info({ actor: actorLabel(caller(c)), user_id: user.id, role: user.role }, 'user created');
    return c.json(user, 201);
  });
