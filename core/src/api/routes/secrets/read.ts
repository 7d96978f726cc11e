/** GET /api/v1/secrets/{name} (admin): the value. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { readSecret } from '../../../domain/secrets';
import { requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';
import { NameParamSchema, SecretInfoSchema } from './schemas';

const SecretSchema = SecretInfoSchema.extend({ value: z.string() }).openapi('Secret');

const route = createRoute({
  method: 'get',
  path: '/api/v1/secrets/{name}',
  tags: ['secrets'],
  operationId: 'readSecret',
  summary: 'Read the value of a secret',
  security: BEARER,
  middleware: [requireAdmin('reading a secret value requires admin')] as const,
  request: { params: NameParamSchema },
  responses: { 200: json(SecretSchema, 'The secret with its value'), ...errors(400, 401, 403, 404) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await readSecret(core.db, core.sealer, c.req.valid('param').name), 200));
