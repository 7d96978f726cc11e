/** GET /api/v1/secrets (both roles): names, descriptions and timestamps, never values. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listSecrets } from '../../../domain/secrets';
import type { Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';
import { SecretInfoSchema } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/api/v1/secrets',
  tags: ['secrets'],
  operationId: 'listSecrets',
  summary: 'List the secrets, without their values',
  security: BEARER,
  responses: {
    200: json(z.object({ secrets: z.array(SecretInfoSchema) }), 'Secrets without their values'),
    ...errors(401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await listSecrets(core.db), 200));
