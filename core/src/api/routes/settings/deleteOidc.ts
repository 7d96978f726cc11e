/** DELETE /api/v1/settings/oidc (admin): forget the settings-sourced provider (409 when the environment configures one). */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';
import { OidcSettingsSchema, presentOidc } from './schemas';

const route = createRoute({
  method: 'delete',
  path: '/api/v1/settings/oidc',
  tags: ['settings'],
  operationId: 'deleteOidcSettings',
  summary: 'Forget the OIDC provider set in settings',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  responses: { 200: json(OidcSettingsSchema, 'The OIDC settings in force'), ...errors(401, 403, 409) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const oidc = await core.oidcSettings.clear(actor(c));
    core.log.info({ actor: actorLabel(caller(c)) }, 'OIDC settings cleared');
    return c.json(presentOidc(oidc), 200);
  });
