import { z } from 'zod';
import { mintPat, PAT_MAX_EXPIRY_DAYS } from '../../../domain/pats';
import { IssuedPatSchema, toIssuedPat } from '../../schemas/tokens';
import { orgMemberProcedure } from '../../trpc';

export const createTokenInput = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  instance_id: z.uuid({ error: 'must be the id (UUID) of an instance key of your organization' }),
  // A union, not .nullish(): trpc-to-openapi switches plain numbers to coercion in place ("30" would pass).
  expires_in_days: z
    .union(
      [
        z
          .number()
          .int('must be a whole number of days')
          .min(1, 'must be at least 1')
          .max(PAT_MAX_EXPIRY_DAYS, `must be at most ${PAT_MAX_EXPIRY_DAYS}`),
        z.null(),
      ],
      { error: `must be a whole number of days from 1 to ${PAT_MAX_EXPIRY_DAYS}, or null` },
    )
    .optional()
    .describe(`Optional, 1 to ${PAT_MAX_EXPIRY_DAYS}; omitted or null = no expiry`),
});

export const createTokenProcedure = orgMemberProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/tokens',
      operationId: 'createPersonalAccessToken',
      tags: ['account'],
      protect: true,
      summary: 'Mint a personal access token for one instance of your organization',
      description:
        'Any member of the organization may mint. The token (svp_…) appears only in this response and is ' +
        'accepted only at /mcp. 404 for an instance of another organization; 400 for a revoked instance or an ' +
        'expiry over 365 days.',
    },
  })
  .input(createTokenInput)
  .output(IssuedPatSchema)
  .mutation(async ({ ctx, input }) =>
    toIssuedPat(
      await mintPat(ctx.user, {
        name: input.name,
        instanceId: input.instance_id,
        expiresInDays: input.expires_in_days,
      }),
    ),
  );
