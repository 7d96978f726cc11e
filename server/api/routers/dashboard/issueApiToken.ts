import { z } from 'zod';
import { config } from '../../../config';
import { issueScriptToken } from '../../../domain/scriptTokens';
import { browserSessionProcedure } from '../../trpc';

/**
 * The "API access" panel: a short-lived Hub JWT of the signed-in user, for scripts calling /api/v1
 * (account, admin, catalog) with `Authorization: Bearer`. Dashboard only: no REST mapping, and a browser
 * session (cookie, same origin) is required, so a script token cannot mint its successor over /api/trpc either.
 * The token carries no role: authority is read from the database on every request,
 * so demotion or deletion takes effect at once. It is recorded (server/domain/scriptTokens.ts): listed at
 * account.listApiTokens and revocable one by one.
 */
export const issueApiTokenProcedure = browserSessionProcedure
  .input(
    z.strictObject({
      ttl_seconds: z
        .number()
        .int()
        .min(60, 'must be at least 60 seconds')
        .max(8 * 3600, 'must be at most 8 hours'),
      label: z.string().trim().max(100, 'must be at most 100 characters').optional(),
    }),
  )
  .output(
    z.object({
      id: z.uuid(),
      token: z.string(),
      label: z.string(),
      expires_at: z.string(),
      ttl_seconds: z.number().int(),
    }),
  )
  .mutation(async ({ ctx, input }) => {
    const ttl = Math.min(input.ttl_seconds, config.jwtTtlSeconds);
    const issued = await issueScriptToken({
      userId: ctx.user.userId,
      source: 'dashboard',
      label: input.label,
      ttlSeconds: ttl,
      actor: ctx.user,
      orgId: ctx.user.orgId,
    });
    return {
      id: issued.id,
      token: issued.token,
      label: issued.label,
      expires_at: issued.expiresAt.toISOString(),
      ttl_seconds: ttl,
    };
  });
