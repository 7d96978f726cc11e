/** GET /api/v1/tokens/{id}/audit (both roles): the token's requests, newest first. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listAudit } from '../../../domain/machineTokens';
import type { Router } from '../../hono';
import { BEARER, errors, IdParamSchema, json, PageQuerySchema, PaginationSchema } from '../../schemas';

const AuditRecordSchema = z
  .object({
    id: z.string(),
    token_id: z.string(),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    at: z.string(),
  })
  .openapi('AuditRecord');

const route = createRoute({
  method: 'get',
  path: '/api/v1/tokens/{id}/audit',
  tags: ['tokens'],
  operationId: 'listMachineTokenAudit',
  summary: 'List the requests made with a machine token',
  security: BEARER,
  request: { params: IdParamSchema, query: PageQuerySchema },
  responses: {
    200: json(
      z.object({ records: z.array(AuditRecordSchema), pagination: PaginationSchema }),
      'Requests made with the token, newest first',
    ),
    ...errors(400, 401, 404),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    // Records still queued for writing belong in the answer too.
    await core.audit.flush();
    return c.json(await listAudit(core.db, c.req.valid('param').id, c.req.valid('query')), 200);
  });
