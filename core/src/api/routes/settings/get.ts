/** GET /api/v1/settings (both roles). */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import type { Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';
import { OidcSettingsSchema, presentOidc } from './schemas';

const SettingsSchema = z
  .object({ oidc: OidcSettingsSchema, temporary_admin: z.object({ enabled: z.boolean() }), version: z.string() })
  .openapi('Settings');

const route = createRoute({
  method: 'get',
  path: '/api/v1/settings',
  tags: ['settings'],
  operationId: 'getSettings',
  summary: 'Get the settings',
  security: BEARER,
  responses: { 200: json(SettingsSchema, 'Settings (no secrets in them)'), ...errors(401) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) =>
    c.json(
      {
        oidc: presentOidc(await core.oidcSettings.current()),
        temporary_admin: { enabled: core.config.temporaryAdmin !== null },
        version: core.config.version,
      },
      200,
    ),
  );
