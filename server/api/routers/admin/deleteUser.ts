import { z } from 'zod';
import { deleteUser } from '../../../domain/userAdmin';
import { adminProcedure } from '../../trpc';

export const deleteUserProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/admin/users',
      operationId: 'deleteUser',
      tags: ['admin'],
      protect: true,
      summary: 'Delete a user (id in the JSON body or as ?id=): membership and personal access tokens go with it',
      description:
        'Only a superadmin may delete a superadmin; the last superadmin cannot be deleted (409); nor can the ' +
        'last admin of an organization that has other members (409).',
    },
  })
  .input(z.object({ id: z.uuid() }))
  .output(z.object({ deleted: z.object({ id: z.uuid(), email: z.string() }) }))
  .mutation(async ({ ctx, input }) => {
    const row = await deleteUser(ctx.user, input.id);
    return { deleted: { id: row.id, email: row.email } };
  });
