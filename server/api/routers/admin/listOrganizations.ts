import { z } from 'zod';
import { listOrganizations } from '../../../domain/organizations';
import { adminProcedure } from '../../trpc';
import { ORG_STATUSES, ORG_TIERS } from '../../schemas/account';
import { AdminOrganizationSchema, toAdminOrganization } from '../../schemas/admin';
import { PaginationSchema, pageInput, pagination, resolvePage } from '../../schemas/query';

export const listOrganizationsProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/organizations',
      operationId: 'listOrganizations',
      tags: ['admin'],
      protect: true,
      summary: 'Organizations with member_count, api_key_count (active keys), status and tier',
    },
  })
  .input(
    z.object({
      search: z.string().trim().max(200).optional().describe('Case-insensitive substring of name or slug'),
      status: z.enum(ORG_STATUSES).optional(),
      tier: z.enum(ORG_TIERS).optional(),
      ...pageInput,
    }),
  )
  .output(z.object({ organizations: z.array(AdminOrganizationSchema), pagination: PaginationSchema }))
  .query(async ({ input }) => {
    const page = resolvePage(input);
    const { rows, total } = await listOrganizations(
      { search: input.search, status: input.status, tier: input.tier },
      page,
    );
    return { organizations: rows.map(toAdminOrganization), pagination: pagination(page, total) };
  });
