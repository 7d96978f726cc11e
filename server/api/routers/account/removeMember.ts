import { z } from 'zod';
import { removeMember } from '../../../domain/members';
import { orgAdminProcedure } from '../../trpc';

export const removeMemberProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/account/members',
      operationId: 'removeMember',
      tags: ['account'],
      protect: true,
      summary: 'Remove a member from the organization',
      description:
        'user_id in the JSON body or as ?user_id=. Organization admins only. 404 for a user outside the ' +
        'organization; 409 for the last admin. The member’s personal access tokens stop working at once.',
    },
  })
  .input(z.object({ user_id: z.uuid() }))
  .output(z.object({ removed: z.object({ user_id: z.uuid() }) }))
  .mutation(async ({ ctx, input }) => {
    const member = await removeMember(ctx.user, ctx.org.id, { userId: input.user_id });
    return { removed: { user_id: member.id } };
  });
