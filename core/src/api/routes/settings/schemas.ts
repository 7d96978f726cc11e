/** Shapes shared by the settings routes. Nothing secret is in them. */
import { z } from '@hono/zod-openapi';
import type { EffectiveOidc } from '../../../domain/oidcSettings';
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
});
