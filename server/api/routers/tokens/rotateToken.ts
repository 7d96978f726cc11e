import { z } from 'zod';
import { rotatePat } from '../../../domain/pats';
import { IssuedPatSchema, toIssuedPat } from '../../schemas/tokens';
import { userProcedure } from '../../trpc';

export const rotateTokenProcedure = userProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/account/tokens',
      operationId: 'rotatePersonalAccessToken',
      tags: ['account'],
      protect: true,
      summary: 'Rotate a personal access token: new secret, same id',
      description:
        'Only the token’s minter (anyone else in the organization: 403; a token of another organization: ' +
        '404). The old secret stops working at once. Revoked, expired or dead-membership tokens cannot be ' +
        'rotated (409).',
    },
  })
  .input(z.object({ id: z.uuid({ error: 'must be a token id (UUID)' }) }))
  .output(IssuedPatSchema)
  .mutation(async ({ ctx, input }) => toIssuedPat(await rotatePat(ctx.user, input.id)));
