/** People in Core: listed for both roles, managed by admins. Never a password hash in an answer. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../context';
import { notFound } from '../../domain/errors';
import { actorLabel } from '../../domain/principal';
import { createLocalUser, deleteUser, getUser, listUsers, PASSWORD_MAX, PASSWORD_MIN, publicUser, updateUser } from '../../domain/users';
import { caller, requireAdmin, type Router } from '../hono';
import { BEARER, errors, IdParamSchema, json, jsonBody, PageQuerySchema, PaginationSchema, RoleSchema } from '../schemas';

const UserSchema = z
  .object({ id: z.string(), email: z.string(), name: z.string(), role: RoleSchema, kind: z.enum(['local', 'oidc']), created_at: z.string() })
  .openapi('User');

const password = z.string().min(PASSWORD_MIN).max(PASSWORD_MAX);
const email = z.email().max(320);
const name = z.string().max(200);

const CreateUserSchema = z.strictObject({ email, password, role: RoleSchema, name: name.optional() }).openapi('CreateUser');
const UpdateUserSchema = z
  .strictObject({ email: email.optional(), name: name.optional(), role: RoleSchema.optional(), password: password.optional() })
  .openapi('UpdateUser');

const list = createRoute({
  method: 'get',
  path: '/api/v1/users',
  tags: ['users'],
  security: BEARER,
  request: { query: PageQuerySchema },
  responses: { 200: json(z.object({ users: z.array(UserSchema), pagination: PaginationSchema }), 'Users'), ...errors(400, 401) },
});

const get = createRoute({
  method: 'get',
  path: '/api/v1/users/{id}',
  tags: ['users'],
  security: BEARER,
  request: { params: IdParamSchema },
  responses: { 200: json(UserSchema, 'The user'), ...errors(401, 404) },
});

const create = createRoute({
  method: 'post',
  path: '/api/v1/users',
  tags: ['users'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(CreateUserSchema) },
  responses: { 201: json(UserSchema, 'Created'), ...errors(400, 401, 403, 409) },
});

const update = createRoute({
  method: 'put',
  path: '/api/v1/users/{id}',
  tags: ['users'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema, body: jsonBody(UpdateUserSchema) },
  responses: { 200: json(UserSchema, 'Updated'), ...errors(400, 401, 403, 404, 409) },
});

const remove = createRoute({
  method: 'delete',
  path: '/api/v1/users/{id}',
  tags: ['users'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Deleted' }, ...errors(401, 403, 404, 409) },
});

export function registerUserRoutes(app: Router, core: CoreContext) {
  app.openapi(list, async (c) => c.json(await listUsers(core.db, c.req.valid('query')), 200));

  app.openapi(get, async (c) => {
    const user = await getUser(core.db, c.req.valid('param').id);
    if (!user) throw notFound('user');
    return c.json(publicUser(user), 200);
  });

  app.openapi(create, async (c) => {
    const user = await createLocalUser(core.db, c.req.valid('json'));
    core.log.info('user created', { actor: actorLabel(caller(c)), user_id: user.id, role: user.role });
    return c.json(user, 201);
  });

  app.openapi(update, async (c) => {
    const patch = c.req.valid('json');
    const user = await updateUser(core.db, c.req.valid('param').id, patch);
    core.log.info('user updated', { actor: actorLabel(caller(c)), user_id: user.id, fields: Object.keys(patch) });
    return c.json(user, 200);
  });

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await deleteUser(core.db, id);
    core.log.info('user deleted', { actor: actorLabel(caller(c)), user_id: id });
    return c.body(null, 204);
  });
}
