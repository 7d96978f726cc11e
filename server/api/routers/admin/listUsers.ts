import { z } from 'zod';
import { listUsers } from '../../../domain/userAdmin';
import { adminProcedure } from '../../trpc';
import { PLATFORM_ROLES } from '../../schemas/account';
import { AdminUserSchema, toAdminUser } from '../../schemas/admin';
import { PaginationSchema, pageInput, pagination, resolvePage } from '../../schemas/query';

export const listUsersProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/users',
      operationId: 'listUsers',
      tags: ['admin'],
      protect: true,
      summary: 'All users with organization info (paginated; search matches the email)',
    },
  })
  .input(
    z.object({
      search: z.string().trim().max(320).optional().describe('Case-insensitive substring of the email'),
      role: z.enum(PLATFORM_ROLES).optional(),
      org_id: z.uuid().optional(),
      ...pageInput,
    }),
  )
  .output(z.object({ users: z.array(AdminUserSchema), pagination: PaginationSchema }))
  .query(async ({ input }) => {
    const page = resolvePage(input);
    const { rows, total } = await listUsers({ search: input.search, role: input.role, orgId: input.org_id }, page);
    return { users: rows.map(toAdminUser), pagination: pagination(page, total) };
  });
