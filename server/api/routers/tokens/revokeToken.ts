import { z } from 'zod';
import { revokePat } from '../../../domain/pats';
import { userProcedure } from '../../trpc';

export const revokeTokenProcedure = userProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/account/tokens',
      operationId: 'revokePersonalAccessToken',
      tags: ['account'],
      protect: true,
      summary: 'Revoke a personal access token',
      description:
        'The minter or an admin of the token’s organization (others: 403; a token of another organization: ' +
        '404). Takes effect at once; revoking again is harmless. id in the JSON body or as ?id=.',
    },
  })
  .input(z.object({ id: z.uuid({ error: 'must be a token id (UUID)' }) }))
  .output(z.object({ token: z.object({ id: z.uuid(), status: z.literal('revoked'), revoked_at: z.string() }) }))
  .mutation(async ({ ctx, input }) => {
    const { id, revokedAt } = await revokePat(ctx.user, input.id);
    return { token: { id, status: 'revoked' as const, revoked_at: new Date(revokedAt).toISOString() } };
  });
