/** PUT /api/v1/secrets/{name} (admin): create or replace; the value is not echoed. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { putSecret } from '../../../domain/secrets';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json, jsonBody } from '../../schemas';
import { NameParamSchema, SecretInfoSchema } from './schemas';

const PutSecretSchema = z
  .strictObject({ value: z.string().max(65_536), description: z.string().max(1000).optional() })
  .openapi('PutSecret');

const route = createRoute({
  method: 'put',
  path: '/api/v1/secrets/{name}',
  tags: ['secrets'],
  operationId: 'putSecret',
  summary: 'Create or replace a secret',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: NameParamSchema, body: jsonBody(PutSecretSchema) },
  responses: { 200: json(SecretInfoSchema, 'Stored (the value is not echoed)'), ...errors(400, 401, 403) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { name } = c.req.valid('param');
    const info = await putSecret(core.db, core.sealer, name, c.req.valid('json'), actor(c));
    core.log.info({ actor: actorLabel(caller(c)), secret_name: name }, 'secret stored');
    return c.json(info, 200);
  });
