/** Shapes shared by the settings routes. Nothing secret is in them. */
import { z } from '@hono/zod-openapi';
import { tokenPolicy, type EffectiveOidc } from '../../../domain/oidcSettings';
import { RoleSchema } from '../../schemas';

export const OidcSettingsSchema = z
  .object({
    source: z.enum(['environment', 'settings', 'none']),
    issuer: z.string().nullable(),
    client_id: z.string().nullable(),
    audience: z.string().nullable(),
    scopes: z.string(),
    default_role: RoleSchema,
    admin_groups: z.array(z.string()),
    token_policy: z
      .enum(['jwt_audience', 'introspection', 'userinfo', 'jwt_only'])
      .openapi({ description: 'How Core tells that an access token was issued to it' }),
    token_policy_description: z.string(),
    accept_userinfo_tokens: z.boolean().openapi({ description: 'CORE_OIDC_ACCEPT_USERINFO_TOKENS' }),
    introspection_client_id: z
      .string()
      .nullable()
      .openapi({ description: 'CORE_OIDC_INTROSPECTION_CLIENT_ID (the secret is never shown)' }),
  })
  .openapi('OidcSettings');

export const presentOidc = (o: EffectiveOidc) => ({
  source: o.source,
  issuer: o.issuer,
  client_id: o.clientId,
  audience: o.audience,
  scopes: o.scopes,
  default_role: o.defaultRole,
  admin_groups: o.adminGroups,
  token_policy: tokenPolicy(o).policy,
  token_policy_description: tokenPolicy(o).description,
  accept_userinfo_tokens: o.acceptUserinfoTokens,
  introspection_client_id: o.introspection?.clientId ?? null,
});
