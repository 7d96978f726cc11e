/** Response shapes of the script token endpoints (/api/v1/account/api-tokens) and the row → JSON mapping. */
import { z } from 'zod';
import type { ScriptTokenView } from '../../domain/scriptTokens';

export const ApiTokenSchema = z.object({
  id: z.uuid().describe("The token's jti"),
  label: z.string(),
  source: z.enum(['cli', 'dashboard']).describe('cli: `hub token`; dashboard: the API access panel'),
  created_at: z.string().describe('ISO 8601'),
  expires_at: z.string().describe('ISO 8601'),
  last_used_at: z.string().nullable().describe('ISO 8601; updated at most once a minute'),
  revoked_at: z.string().nullable(),
  status: z
    .enum(['active', 'expired', 'revoked', 'signed_out'])
    .describe('active, or why the Hub refuses the token now'),
});

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

export function toApiToken(row: ScriptTokenView): z.infer<typeof ApiTokenSchema> {
  return {
    id: row.id,
    label: row.label,
    source: row.source,
    created_at: iso(row.createdAt)!,
    expires_at: iso(row.expiresAt)!,
    last_used_at: iso(row.lastUsedAt),
    revoked_at: iso(row.revokedAt),
    status: row.status,
  };
}
