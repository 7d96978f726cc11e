import { z } from 'zod';
import { acceptInvitation } from '../../../domain/invitations';
import { userProcedure } from '../../trpc';
import { ORG_ROLES } from '../../schemas/account';

export const acceptInvitationProcedure = userProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/invitations/accept',
      operationId: 'acceptInvitation',
      tags: ['account'],
      protect: true,
      summary: 'Accept an invitation addressed to the caller: join its organization with the invited role',
      description:
        '404 for an invitation addressed to someone else (or no such id); 409 when it was already answered or ' +
        'revoked, has expired, its organization is suspended, or the caller already belongs to an ' +
        'organization (leave it first: POST /account/leave).',
    },
  })
  .input(z.strictObject({ id: z.uuid() }))
  .output(z.object({ organization: z.object({ id: z.uuid(), name: z.string(), role: z.enum(ORG_ROLES) }) }))
  .mutation(async ({ ctx, input }) => {
    const joined = await acceptInvitation(ctx.user, input.id);
    return { organization: { id: joined.orgId, name: joined.orgName, role: joined.role } };
  });
