import { z } from 'zod';
import { listOrgInvitations } from '../../../domain/invitations';
import { orgAdminProcedure } from '../../trpc';
import { InvitationSchema, toInvitation } from '../../schemas/account';

export const listInvitationsProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/invitations',
      operationId: 'listInvitations',
      tags: ['account'],
      protect: true,
      summary: "The organization's pending (unexpired) invitations, newest first",
      description: 'Organization admins only.',
    },
  })
  .input(z.object({}))
  .output(z.object({ invitations: z.array(InvitationSchema) }))
  .query(async ({ ctx }) => ({ invitations: (await listOrgInvitations(ctx.org.id)).map(toInvitation) }));
