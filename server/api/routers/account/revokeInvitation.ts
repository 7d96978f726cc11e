import { z } from 'zod';
import { revokeInvitation } from '../../../domain/invitations';
import { orgAdminProcedure } from '../../trpc';

export const revokeInvitationProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/account/invitations',
      operationId: 'revokeInvitation',
      tags: ['account'],
      protect: true,
      summary: 'Revoke a pending invitation: it can no longer be accepted',
      description:
        'id in the JSON body or as ?id=. Organization admins only. 404 for an invitation of another ' +
        'organization; 409 when it was already accepted or declined. Revoking a revoked invitation is a ' +
        'no-op.',
    },
  })
  .input(z.object({ id: z.uuid() }))
  .output(z.object({ invitation: z.object({ id: z.uuid(), status: z.literal('revoked') }) }))
  .mutation(async ({ ctx, input }) => {
    const row = await revokeInvitation(ctx.user, ctx.org.id, input.id);
    return { invitation: { id: row.id, status: 'revoked' as const } };
  });
