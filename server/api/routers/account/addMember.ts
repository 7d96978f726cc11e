import { z } from 'zod';
import { addMember } from '../../../domain/members';
import { orgAdminProcedure } from '../../trpc';
import { MemberSchema, ORG_ROLES, toMember } from '../../schemas/account';

export const addMemberProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/members',
      tags: ['account'],
      protect: true,
      summary: 'Add an existing Hub user who has no organization',
      description: 'Organization admins only. 404 unknown email; 409 when the user already belongs to an organization.',
    },
  })
  .input(z.strictObject({ email: z.string().trim().max(320).pipe(z.email()), role: z.enum(ORG_ROLES) }))
  .output(z.object({ member: MemberSchema }))
  .mutation(async ({ ctx, input }) => ({ member: toMember(await addMember(ctx.user, ctx.org.id, input)) }));
