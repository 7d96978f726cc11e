/** GET /api/v1/auth/me: who is calling, for every kind of credential. */
import { createRoute, z } from '@hono/zod-openapi';
import { caller, type Router } from '../../hono';
import { BEARER, errors, json, RoleSchema } from '../../schemas';

const MeSchema = z
  .object({
    kind: z.enum(['local', 'oidc', 'temporary_admin', 'machine_token']),
    role: RoleSchema,
    temporary: z.boolean(),
    user: z.object({ id: z.string().nullable(), email: z.string(), name: z.string() }).nullable(),
    token_id: z.string().nullable(),
  })
  .openapi('Me');

const route = createRoute({
  method: 'get',
  path: '/api/v1/auth/me',
  tags: ['auth'],
  operationId: 'getCurrentCaller',
  summary: 'Who is calling',
  security: BEARER,
  responses: { 200: json(MeSchema, 'The caller'), ...errors(401) },
});

export default (app: Router) =>
  app.openapi(route, (c) => {
    const p = caller(c);
    const user =
      p.kind === 'local' || p.kind === 'oidc'
        ? { id: p.userId, email: p.email, name: p.name }
        : p.kind === 'temporary_admin'
          ? { id: null, email: p.username, name: p.username }
          : null;
    return c.json(
      {
        kind: p.kind,
        role: p.role,
        temporary: p.kind === 'temporary_admin',
        user,
        token_id: p.kind === 'machine_token' ? p.tokenId : null,
      },
      200,
    );
  });
