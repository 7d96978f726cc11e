import { z } from 'zod';
import { listReceivedInvitations } from '../../../domain/invitations';
import { userProcedure } from '../../trpc';
import { ReceivedInvitationSchema, toReceivedInvitation } from '../../schemas/account';

export const listReceivedInvitationsProcedure = userProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/invitations/received',
      operationId: 'listReceivedInvitations',
      tags: ['account'],
      protect: true,
      summary: "Pending invitations addressed to the caller's verified email, newest first",
      description: 'Any signed-in user, with or without an organization.',
    },
  })
  .input(z.object({}))
  .output(z.object({ invitations: z.array(ReceivedInvitationSchema) }))
  .query(async ({ ctx }) => ({ invitations: (await listReceivedInvitations(ctx.user)).map(toReceivedInvitation) }));
