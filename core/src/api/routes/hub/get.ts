/** GET /api/v1/settings/hub (both roles): the Hub connection and its sync state, never the key. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import type { Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';
import { HubSettingsSchema } from './schemas';

const route = createRoute({
  method: 'get',
  path: '/api/v1/settings/hub',
  tags: ['hub'],
  operationId: 'getHubSettings',
  summary: 'Get the Hub connection and its sync state',
  security: BEARER,
  responses: { 200: json(HubSettingsSchema, 'The Hub connection and its sync state'), ...errors(401) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await core.hub.status(), 200));
