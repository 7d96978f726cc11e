/** Secrets: both roles list them; only admins read a value or write. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../context';
import { actorLabel } from '../../domain/principal';
import { deleteSecret, listSecrets, putSecret, readSecret, SECRET_NAME } from '../../domain/secrets';
import { caller, requireAdmin, type Router } from '../hono';
import { BEARER, errors, json, jsonBody } from '../schemas';

const SecretInfoSchema = z
  .object({ name: z.string(), description: z.string(), created_at: z.string(), updated_at: z.string() })
  .openapi('SecretInfo');
const SecretSchema = SecretInfoSchema.extend({ value: z.string() }).openapi('Secret');
const NameParamSchema = z.object({
  name: z
    .string()
    .regex(SECRET_NAME, 'must be 1–128 characters of A–Z, a–z, 0–9, _ . -')
    .openapi({ param: { name: 'name', in: 'path' } }),
});
const PutSecretSchema = z
  .strictObject({ value: z.string().max(65_536), description: z.string().max(1000).optional() })
  .openapi('PutSecret');

const list = createRoute({
  method: 'get',
  path: '/api/v1/secrets',
  tags: ['secrets'],
  security: BEARER,
  responses: { 200: json(z.object({ secrets: z.array(SecretInfoSchema) }), 'Secrets without their values'), ...errors(401) },
});

const read = createRoute({
  method: 'get',
  path: '/api/v1/secrets/{name}',
  tags: ['secrets'],
  security: BEARER,
  middleware: [requireAdmin('reading a secret value requires admin')] as const,
  request: { params: NameParamSchema },
  responses: { 200: json(SecretSchema, 'The secret with its value'), ...errors(400, 401, 403, 404) },
});

const put = createRoute({
  method: 'put',
  path: '/api/v1/secrets/{name}',
  tags: ['secrets'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: NameParamSchema, body: jsonBody(PutSecretSchema) },
  responses: { 200: json(SecretInfoSchema, 'Stored (the value is not echoed)'), ...errors(400, 401, 403) },
});

const remove = createRoute({
  method: 'delete',
  path: '/api/v1/secrets/{name}',
  tags: ['secrets'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: NameParamSchema },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
});

export function registerSecretRoutes(app: Router, core: CoreContext) {
  app.openapi(list, async (c) => c.json(await listSecrets(core.db), 200));

  app.openapi(read, async (c) => c.json(await readSecret(core.db, core.sealer, c.req.valid('param').name), 200));

  app.openapi(put, async (c) => {
    const { name } = c.req.valid('param');
    const info = await putSecret(core.db, core.sealer, name, c.req.valid('json'));
    core.log.info('secret stored', { actor: actorLabel(caller(c)), secret_name: name });
    return c.json(info, 200);
  });

  app.openapi(remove, async (c) => {
    const { name } = c.req.valid('param');
    await deleteSecret(core.db, name);
    core.log.info('secret deleted', { actor: actorLabel(caller(c)), secret_name: name });
    return c.body(null, 204);
  });
}
