import { z } from 'zod';
import { config } from '../../../config';
import { getDb } from '../../../db/client';
import { writeAudit } from '../../../domain/audit';
import { signUserToken } from '../../../domain/jwt';
import { userProcedure } from '../../trpc';

/** Lifetimes offered by the dashboard's API access panel, capped by HUB_JWT_TTL. */
export const API_TOKEN_TTLS = [900, 3600, 8 * 3600] as const;

/**
 * The "API access" panel: a short-lived Hub JWT of the signed-in user, for scripts calling /api/v1
 * (account, admin, catalog) with `Authorization: Bearer`. Dashboard only (no REST mapping). The token
 * carries no role: authority is read from the database on every request, so demotion or deletion
 * takes effect at once.
 */
export const issueApiTokenProcedure = userProcedure
  .input(z.strictObject({ ttl_seconds: z.number().int().min(60, 'must be at least 60 seconds').max(8 * 3600, 'must be at most 8 hours') }))
  .output(z.object({ token: z.string(), expires_at: z.string(), ttl_seconds: z.number().int() }))
  .mutation(async ({ ctx, input }) => {
    const ttl = Math.min(input.ttl_seconds, config.jwtTtlSeconds);
    const token = await signUserToken(ctx.user.userId, ttl);
    const db = await getDb();
    await writeAudit(db, {
      actor: ctx.user,
      action: 'api_token.issue',
      targetType: 'user',
      targetId: ctx.user.userId,
      orgId: ctx.user.orgId,
      details: { ttl_seconds: ttl },
    });
    return { token, expires_at: new Date(Date.now() + ttl * 1000).toISOString(), ttl_seconds: ttl };
  });
