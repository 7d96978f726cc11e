import { z } from 'zod';
import { endSessions } from '../../../domain/profile';
import { userProcedure } from '../../trpc';

export const signOutEverywhereProcedure = userProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/sign-out-everywhere',
      operationId: 'signOutEverywhere',
      tags: ['account'],
      protect: true,
      summary:
        'End every session and Hub JWT of the caller issued until now (this one included); personal access tokens are not affected',
    },
  })
  .input(z.object({}))
  .output(z.object({ signed_out: z.literal(true) }))
  .mutation(async ({ ctx }) => {
    await endSessions(ctx.user.userId);
    return { signed_out: true as const };
  });
