/** GET /api/v1/blocked-identities (both roles): OIDC people an admin removed; their tokens are refused. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listBlockedIdentities } from '../../../domain/users';
import type { Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';

export const BlockedIdentitySchema = z
  .object({
    id: z.string(),
    issuer: z.string(),
    subject: z.string(),
    email: z.string(),
    blocked_by: z.string(),
    blocked_at: z.string(),
  })
  .openapi('BlockedIdentity');

const route = createRoute({
  method: 'get',
  path: '/api/v1/blocked-identities',
  tags: ['users'],
  operationId: 'listBlockedIdentities',
  summary: 'List the OIDC people an admin removed',
  security: BEARER,
  responses: {
    200: json(z.object({ blocked: z.array(BlockedIdentitySchema) }), 'Removed OIDC people (refused until re-admitted)'),
    ...errors(401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await listBlockedIdentities(core.db), 200));
