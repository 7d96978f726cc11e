/** Response shapes of the personal access token endpoints (/api/v1/account/tokens) and the row → JSON mapping. */
import { z } from 'zod';
import type { IssuedPat, PatView } from '../../domain/pats';

export const PatStatusSchema = z
  .enum([
    'active',
    'expired',
    'revoked',
    'api_token_ended',
    'membership_ended',
    'instance_revoked',
    'organization_suspended',
  ])
  .describe(
    'active, or why /mcp refuses the token now (api_token_ended: it was minted with an API token that was revoked, expired or signed out)',
  );

export const PatSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  token_prefix: z.string().describe('Leading characters of the token, for telling tokens apart'),
  instance_id: z.uuid(),
  instance_name: z.string(),
  minter: z.object({ id: z.uuid(), email: z.string(), name: z.string() }),
  created_at: z.string().describe('ISO 8601'),
  expires_at: z.string().nullable().describe('ISO 8601; null = no expiry'),
  last_used_at: z.string().nullable().describe('ISO 8601; updated at most once a minute'),
  rotated_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  status: PatStatusSchema,
});

/** The one response that carries the secret (mint and rotate); it is never shown again. */
export const IssuedPatSchema = z.object({
  token: z.object({
    id: z.uuid(),
    name: z.string(),
    token: z.string().describe('The full svp_ secret; shown only in this response'),
    instance_id: z.uuid(),
    expires_at: z.string().nullable().describe('ISO 8601; null = no expiry'),
  }),
});

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function toPat(row: PatView): z.infer<typeof PatSchema> {
  return {
    id: row.id,
    name: row.name,
    token_prefix: row.tokenPrefix,
    instance_id: row.instanceId,
    instance_name: row.instanceName,
    minter: { id: row.userId, email: row.minterEmail, name: row.minterName },
    created_at: iso(row.createdAt)!,
    expires_at: iso(row.expiresAt),
    last_used_at: iso(row.lastUsedAt),
    rotated_at: iso(row.rotatedAt),
    revoked_at: iso(row.revokedAt),
    status: row.status,
  };
}

export function toIssuedPat(p: IssuedPat): z.infer<typeof IssuedPatSchema> {
  return {
    token: { id: p.id, name: p.name, token: p.secret, instance_id: p.instanceId, expires_at: iso(p.expiresAt) },
  };
}
