import { z } from 'zod';
import { declineInvitation } from '../../../domain/invitations';
import { userProcedure } from '../../trpc';

export const declineInvitationProcedure = userProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/invitations/decline',
      operationId: 'declineInvitation',
      tags: ['account'],
      protect: true,
      summary: 'Decline an invitation addressed to the caller',
      description:
        '404 for an invitation addressed to someone else (or no such id); 409 when it was already answered or revoked, or has expired.',
    },
  })
  .input(z.strictObject({ id: z.uuid() }))
  .output(z.object({ invitation: z.object({ id: z.uuid(), status: z.literal('declined') }) }))
  .mutation(async ({ ctx, input }) => {
    await declineInvitation(ctx.user, input.id);
    return { invitation: { id: input.id, status: 'declined' as const } };
  });
