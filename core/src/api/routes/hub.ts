/** The Hub connection (settings) and the sync trigger. Both roles read the settings; admins change them. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../context';
import { actorLabel } from '../../domain/principal';
import { caller, requireAdmin, type Router } from '../hono';
import { BEARER, errors, json, jsonBody } from '../schemas';

const HubSettingsSchema = z
  .union([
    z.object({ configured: z.literal(false) }),
    z.object({
      configured: z.literal(true),
      source: z.enum(['environment', 'settings']),
      hub_url: z.string(),
      key_prefix: z.string().openapi({ description: 'The key itself is never shown again' }),
      instance_id: z.string().nullable().openapi({ description: 'The instance key id at the Hub (the audience of its MCP assertions)' }),
      organization: z.object({ id: z.string(), name: z.string(), slug: z.string() }).nullable(),
      connected: z.boolean().openapi({ description: 'The last contact with the Hub succeeded' }),
      key_refused: z.boolean().openapi({ description: 'The Hub refused the key (401): sync stopped until a new key is set' }),
      last_sync_at: z.string().nullable(),
      checked_at: z.string().nullable(),
      last_error: z.string().nullable(),
      last_error_at: z.string().nullable(),
      template_count: z.number().int(),
    }),
  ])
  .openapi('HubSettings');

const PutHubSchema = z
  .strictObject({
    hub_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
    instance_key: z.string().min(1).max(500).openapi({ description: 'The Hub instance key (svh_…); checked with the Hub, stored encrypted' }),
  })
  .openapi('PutHubSettings');

const SyncResultSchema = z
  .object({ added: z.number().int(), updated: z.number().int(), removed: z.number().int(), checked_at: z.string() })
  .openapi('SyncResult');

const get = createRoute({
  method: 'get',
  path: '/api/v1/settings/hub',
  tags: ['hub'],
  security: BEARER,
  responses: { 200: json(HubSettingsSchema, 'The Hub connection and its sync state'), ...errors(401) },
});

const put = createRoute({
  method: 'put',
  path: '/api/v1/settings/hub',
  tags: ['hub'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(PutHubSchema) },
  responses: {
    200: json(HubSettingsSchema, 'Connected: the Hub accepted the key; registration and the first sync run in the background'),
    ...errors(400, 401, 403, 409),
    502: { description: 'The Hub is unreachable or failing; nothing stored', content: { 'application/json': { schema: z.object({ code: z.string(), message: z.string() }) } } },
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/api/v1/settings/hub',
  tags: ['hub'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  responses: { 204: { description: 'Disconnected; the local catalog copy is dropped' }, ...errors(401, 403, 409) },
});

const sync = createRoute({
  method: 'post',
  path: '/api/v1/catalog/sync',
  tags: ['hub'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  responses: {
    200: json(SyncResultSchema, 'Synced: what changed in the local copy'),
    ...errors(401, 403, 404, 409),
    502: { description: 'The Hub’s problem, in the message', content: { 'application/json': { schema: z.object({ code: z.string(), message: z.string() }) } } },
  },
});

export function registerHubRoutes(app: Router, core: CoreContext) {
  app.openapi(get, async (c) => c.json(await core.hub.status(), 200));

  app.openapi(put, async (c) => {
    const { hub_url, instance_key } = c.req.valid('json');
    await core.hub.connect(hub_url, instance_key);
    core.log.info('hub settings changed', { actor: actorLabel(caller(c)), hub_url });
    core.catalogSync.kick();
    return c.json(await core.hub.status(), 200);
  });

  app.openapi(remove, async (c) => {
    await core.hub.disconnect();
    core.log.info('hub disconnected', { actor: actorLabel(caller(c)) });
    return c.body(null, 204);
  });

  app.openapi(sync, async (c) => c.json(await core.catalogSync.syncNow(), 200));
}
