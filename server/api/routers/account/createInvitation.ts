import { z } from 'zod';
import { createInvitation, INVITATION_TTL_DAYS } from '../../../domain/invitations';
import { orgAdminProcedure } from '../../trpc';
import { InvitationSchema, ORG_ROLES, toInvitation } from '../../schemas/account';

export const createInvitationProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/invitations',
      operationId: 'createInvitation',
      tags: ['account'],
      protect: true,
      summary: 'Invite an email address to join the organization with a role',
      description:
        'Organization admins only. The person joins only when the signed-in Hub user whose verified email matches ' +
        `accepts it (POST /account/invitations/accept); it expires after ${INVITATION_TTL_DAYS} days. The answer is ` +
        'the same whether or not the address has a Hub account. Inviting an address again replaces its pending ' +
        'invitation. 409 when the address belongs to a member of your organization.',
    },
  })
  .input(z.strictObject({ email: z.string().trim().max(320).pipe(z.email()), role: z.enum(ORG_ROLES) }))
  .output(z.object({ invitation: InvitationSchema }))
  .mutation(async ({ ctx, input }) => ({
    invitation: toInvitation(await createInvitation(ctx.user, ctx.org.id, input)),
  }));
