/** PUT /api/v1/settings/hub (admin): connect with an instance key, checked with the Hub first; then register and sync. */
import { createRoute, z } from '@hono/zod-openapi';
import { insecureTrustAnchor } from '../../../config';
import { describeMalformed } from '@shared/tokens';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json, jsonBody } from '../../schemas';
import { badGateway, HubSettingsSchema } from './schemas';

const PutHubSchema = z
  .strictObject({
    hub_url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2000)
      .superRefine((v, ctx) => {
        const problem = insecureTrustAnchor(v);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    instance_key: z
      .string()
      .max(500)
      .superRefine((key, ctx) => {
        // Refused here, before the Hub is asked: a mistyped or cut key, or another kind of token.
        const problem = describeMalformed(key, 'svh_');
        if (problem) ctx.addIssue({ code: 'custom', message: `not a Hub instance key: it ${problem}` });
      })
      .openapi({ description: 'The Hub instance key (svh_…, 42 characters); checked with the Hub, stored encrypted' }),
  })
  .openapi('PutHubSettings');

const route = createRoute({
  method: 'put',
  path: '/api/v1/settings/hub',
  tags: ['hub'],
  operationId: 'connectHub',
  summary: 'Connect to the Hub with an instance key',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(PutHubSchema) },
  responses: {
    200: json(
      HubSettingsSchema,
      'Connected: the Hub accepted the key; registration and the first sync run in the background',
    ),
    ...errors(400, 401, 403, 409),
    ...badGateway('The Hub is unreachable or failing; nothing stored'),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { hub_url, instance_key } = c.req.valid('json');
    await core.hub.connect(hub_url, instance_key, actor(c));
    core.log.info({ actor: actorLabel(caller(c)), hub_url }, 'hub settings changed');
    core.catalogSync.kick();
    return c.json(await core.hub.status(), 200);
  });
