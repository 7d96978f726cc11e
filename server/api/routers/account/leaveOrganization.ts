import { z } from 'zod';
import { leaveOrganization } from '../../../domain/members';
import { userProcedure } from '../../trpc';

export const leaveOrganizationProcedure = userProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/leave',
      operationId: 'leaveOrganization',
      tags: ['account'],
      protect: true,
      summary: "Leave the caller's organization",
      description:
        "409 for the organization's last admin (make another member admin first) and for a caller without an " +
        "organization. The caller's personal access tokens for the organization stop working at once.",
    },
  })
  .input(z.object({}))
  .output(z.object({ left: z.object({ organization_id: z.uuid() }) }))
  .mutation(async ({ ctx }) => {
    const { orgId } = await leaveOrganization(ctx.user);
    return { left: { organization_id: orgId } };
  });
