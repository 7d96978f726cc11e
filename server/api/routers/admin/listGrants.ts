import { z } from 'zod';
import { listGrants } from '../../../domain/catalog/grants';
import { adminProcedure } from '../../trpc';
import { GrantSchema, toGrant } from '../../schemas/admin';

export const listGrantsProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/catalog-access',
      operationId: 'listCatalogGrants',
      tags: ['admin'],
      protect: true,
      summary: 'All access grants with organization and category names',
      description: 'Optional filters org_id and category_id.',
    },
  })
  .input(z.object({ org_id: z.uuid().optional(), category_id: z.uuid().optional() }))
  .output(z.object({ grants: z.array(GrantSchema) }))
  .query(async ({ input }) => ({
    grants: (await listGrants({ orgId: input.org_id, categoryId: input.category_id })).map(toGrant),
  }));
