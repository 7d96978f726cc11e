import { z } from 'zod';
import { listMembers } from '../../../domain/members';
import { orgMemberProcedure } from '../../trpc';
import { MemberSchema, toMember } from '../../schemas/account';

export const listMembersProcedure = orgMemberProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/members',
      operationId: 'listMembers',
      tags: ['account'],
      protect: true,
      summary: "Members of the caller's organization",
      description: 'Any member.',
    },
  })
  .input(z.object({}))
  .output(z.object({ members: z.array(MemberSchema) }))
  .query(async ({ ctx }) => ({ members: (await listMembers(ctx.org.id)).map(toMember) }));
