import { z } from 'zod';
import { updateUserRole } from '../../../domain/userAdmin';
import { adminProcedure } from '../../trpc';
import { PLATFORM_ROLES } from '../../schemas/account';
import { AdminUserSchema, toAdminUser } from '../../schemas/admin';

export const updateUserProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/admin/users',
      operationId: 'updateUser',
      tags: ['admin'],
      protect: true,
      summary: "Update a user's platform role (user | admin | superadmin)",
      description:
        'Only a superadmin may grant or revoke superadmin (403 otherwise); the last superadmin cannot be demoted (409).',
    },
  })
  .input(z.strictObject({ id: z.uuid(), role: z.enum(PLATFORM_ROLES) }))
  .output(z.object({ user: AdminUserSchema }))
  .mutation(async ({ ctx, input }) => ({ user: toAdminUser(await updateUserRole(ctx.user, input.id, input.role)) }));
