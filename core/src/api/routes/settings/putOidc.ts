/** PUT /api/v1/settings/oidc (admin): the provider, unless the environment configures it (409). */
import { createRoute, z } from '@hono/zod-openapi';
import { insecureTrustAnchor } from '../../../config';
import type { CoreContext } from '../../../context';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json, jsonBody, RoleSchema } from '../../schemas';
import { OidcSettingsSchema, presentOidc } from './schemas';

const PutOidcSchema = z
  .strictObject({
    issuer: z
      .url()
      .max(500)
      .superRefine((v, ctx) => {
        const problem = insecureTrustAnchor(v);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    client_id: z.string().min(1).max(200),
    audience: z.string().min(1).max(500).nullish(),
    scopes: z.string().min(1).max(500).optional(),
    default_role: RoleSchema.optional(),
  })
  .openapi('PutOidcSettings');

const route = createRoute({
  method: 'put',
  path: '/api/v1/settings/oidc',
  tags: ['settings'],
  operationId: 'putOidcSettings',
  summary: 'Set the OIDC provider',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(PutOidcSchema) },
  responses: { 200: json(OidcSettingsSchema, 'The OIDC settings in force'), ...errors(400, 401, 403, 409) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const oidc = await core.oidcSettings.put(c.req.valid('json'), actor(c));
    core.log.info({ actor: actorLabel(caller(c)), issuer: oidc.issuer }, 'OIDC settings changed');
    return c.json(presentOidc(oidc), 200);
  });
