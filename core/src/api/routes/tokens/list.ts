/** GET /api/v1/tokens (both roles): never a secret, only its display prefix. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listMachineTokens } from '../../../domain/machineTokens';
import type { Router } from '../../hono';
import { BEARER, errors, json, PageQuerySchema, PaginationSchema } from '../../schemas';
import { TokenSchema } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/api/v1/tokens',
  tags: ['tokens'],
  operationId: 'listMachineTokens',
  summary: 'List the machine tokens',
  security: BEARER,
  request: { query: PageQuerySchema },
  responses: {
    200: json(z.object({ tokens: z.array(TokenSchema), pagination: PaginationSchema }), 'Machine tokens'),
    ...errors(400, 401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await listMachineTokens(core.db, c.req.valid('query')), 200));
