/** Settings: both roles read them (nothing secret in them); admins change the OIDC provider. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../context';
import type { EffectiveOidc } from '../../domain/oidcSettings';
import { actorLabel } from '../../domain/principal';
import { caller, requireAdmin, type Router } from '../hono';
import { BEARER, errors, json, jsonBody, RoleSchema } from '../schemas';

const OidcSettingsSchema = z
  .object({
    source: z.enum(['environment', 'settings', 'none']),
    issuer: z.string().nullable(),
    client_id: z.string().nullable(),
    audience: z.string().nullable(),
    scopes: z.string(),
    default_role: RoleSchema,
    admin_groups: z.array(z.string()),
  })
  .openapi('OidcSettings');

const SettingsSchema = z
  .object({ oidc: OidcSettingsSchema, temporary_admin: z.object({ enabled: z.boolean() }), version: z.string() })
  .openapi('Settings');

const PutOidcSchema = z
  .strictObject({
    issuer: z.url().max(500),
    client_id: z.string().min(1).max(200),
    audience: z.string().min(1).max(500).nullish(),
    scopes: z.string().min(1).max(500).optional(),
    default_role: RoleSchema.optional(),
  })
  .openapi('PutOidcSettings');

const get = createRoute({
  method: 'get',
  path: '/api/v1/settings',
  tags: ['settings'],
  security: BEARER,
  responses: { 200: json(SettingsSchema, 'Settings (no secrets in them)'), ...errors(401) },
});

const putOidc = createRoute({
  method: 'put',
  path: '/api/v1/settings/oidc',
  tags: ['settings'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(PutOidcSchema) },
  responses: { 200: json(OidcSettingsSchema, 'The OIDC settings in force'), ...errors(400, 401, 403, 409) },
});

const deleteOidc = createRoute({
  method: 'delete',
  path: '/api/v1/settings/oidc',
  tags: ['settings'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  responses: { 200: json(OidcSettingsSchema, 'The OIDC settings in force'), ...errors(401, 403, 409) },
});

const present = (o: EffectiveOidc) => ({
  source: o.source,
  issuer: o.issuer,
  client_id: o.clientId,
  audience: o.audience,
  scopes: o.scopes,
  default_role: o.defaultRole,
  admin_groups: o.adminGroups,
});

export function registerSettingsRoutes(app: Router, core: CoreContext) {
  app.openapi(get, async (c) =>
    c.json(
      {
        oidc: present(await core.oidcSettings.current()),
        temporary_admin: { enabled: core.config.temporaryAdmin !== null },
        version: core.config.version,
      },
      200,
    ),
  );

  app.openapi(putOidc, async (c) => {
    const oidc = await core.oidcSettings.put(c.req.valid('json'));
    core.log.info('OIDC settings changed', { actor: actorLabel(caller(c)), issuer: oidc.issuer });
    return c.json(present(oidc), 200);
  });

  app.openapi(deleteOidc, async (c) => {
    const oidc = await core.oidcSettings.clear();
    core.log.info('OIDC settings cleared', { actor: actorLabel(caller(c)) });
    return c.json(present(oidc), 200);
  });
}
