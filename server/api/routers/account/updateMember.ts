import { z } from 'zod';
import { updateMemberRole } from '../../../domain/members';
import { orgAdminProcedure } from '../../trpc';
import { MemberSchema, ORG_ROLES, toMember } from '../../schemas/account';

export const updateMemberProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/account/members',
      operationId: 'updateMember',
      tags: ['account'],
      protect: true,
      summary: "Change a member's organization role",
      description:
        'Organization admins only. 404 for a user outside the organization; 409 when it would leave the organization without an admin.',
    },
  })
  .input(z.strictObject({ user_id: z.uuid(), role: z.enum(ORG_ROLES) }))
  .output(z.object({ member: MemberSchema }))
  .mutation(async ({ ctx, input }) => ({
    member: toMember(await updateMemberRole(ctx.user, ctx.org.id, { userId: input.user_id, role: input.role })),
  }));
