import { z } from 'zod';
import { revokeScriptToken } from '../../../domain/scriptTokens';
import { userProcedure } from '../../trpc';

export const revokeApiTokenProcedure = userProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/account/api-tokens',
      operationId: 'revokeApiToken',
      tags: ['account'],
      protect: true,
      summary: 'Revoke one of your API tokens: refused at once by every Hub process',
      description:
        "id in the JSON body or as ?id=. Only your own tokens (another person's token id: 404). Revoking again is harmless.",
    },
  })
  .input(z.object({ id: z.uuid({ error: 'must be an API token id (UUID)' }) }))
  .output(z.object({ token: z.object({ id: z.uuid(), status: z.literal('revoked'), revoked_at: z.string() }) }))
  .mutation(async ({ ctx, input }) => {
    const { id, revokedAt } = await revokeScriptToken(ctx.user, input.id);
    return { token: { id, status: 'revoked' as const, revoked_at: revokedAt.toISOString() } };
  });
