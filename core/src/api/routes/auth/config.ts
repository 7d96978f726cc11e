/** GET /api/v1/auth/config (public): how to sign in. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { isActive, tokenPolicy } from '../../../domain/oidcSettings';
import type { Router } from '../../hono';
import { errors, json } from '../../schemas';

const AuthConfigSchema = z
  .object({
    oidc: z
      .object({
        issuer: z.string(),
        client_id: z.string(),
        audience: z.string().nullable(),
        scopes: z.string(),
        provider_name: z.string(),
        token_policy: z.enum(['jwt_audience', 'introspection', 'userinfo', 'jwt_only']),
        /** Shown on the sign-in page when the provider's opaque tokens would be refused. */
        setup_note: z.string().nullable(),
      })
      .nullable(),
    local_login: z.literal(true),
  })
  .openapi('AuthConfig');

const route = createRoute({
  method: 'get',
  path: '/api/v1/auth/config',
  tags: ['auth'],
  operationId: 'getAuthConfig',
  security: [],
  summary: 'How to sign in (public)',
  // 400: a query string the database cannot store (NUL), refused for every /api/v1 route (app.ts).
  responses: { 200: json(AuthConfigSchema, 'Sign-in options'), ...errors(400) },
});

function providerName(issuer: string) {
  try {
    return new URL(issuer).hostname;
  } catch {
    return issuer;
  }
}

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const oidc = await core.oidcSettings.current();
    return c.json(
      {
        oidc: isActive(oidc)
          ? {
              issuer: oidc.issuer,
              client_id: oidc.clientId,
              audience: oidc.audience,
              scopes: oidc.scopes,
              provider_name: providerName(oidc.issuer),
              token_policy: tokenPolicy(oidc).policy,
              setup_note:
                tokenPolicy(oidc).policy === 'jwt_only'
                  ? 'If signing in ends with “opaque access tokens are not accepted”, the provider issues opaque tokens: the operator ' +
                    'must set CORE_OIDC_AUDIENCE, CORE_OIDC_INTROSPECTION_CLIENT_ID/SECRET, or CORE_OIDC_ACCEPT_USERINFO_TOKENS=true.'
                  : null,
            }
          : null,
        local_login: true as const,
      },
      200,
    );
  });
