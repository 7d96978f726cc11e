/** PUT /api/v1/settings/hub (admin): connect with an instance key, checked with the Hub first; then register and sync. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json, jsonBody } from '../../schemas';
import { badGateway, HubSettingsSchema } from './schemas';

const PutHubSchema = z
  .strictObject({
    hub_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
    instance_key: z.string().min(1).max(500).openapi({ description: 'The Hub instance key (svh_…); checked with the Hub, stored encrypted' }),
  })
  .openapi('PutHubSettings');

const route = createRoute({
  method: 'put',
  path: '/api/v1/settings/hub',
  tags: ['hub'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(PutHubSchema) },
  responses: {
    200: json(HubSettingsSchema, 'Connected: the Hub accepted the key; registration and the first sync run in the background'),
    ...errors(400, 401, 403, 409),
    ...badGateway('The Hub is unreachable or failing; nothing stored'),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { hub_url, instance_key } = c.req.valid('json');
    await core.hub.connect(hub_url, instance_key);
    core.log.info('hub settings changed', { actor: actorLabel(caller(c)), hub_url });
    core.catalogSync.kick();
    return c.json(await core.hub.status(), 200);
  });
