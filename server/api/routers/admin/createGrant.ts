import { z } from 'zod';
import { createGrant } from '../../../domain/catalog/grants';
import { adminProcedure } from '../../trpc';
import { GrantSchema, toGrant } from '../../schemas/admin';

export const createGrantProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/admin/catalog-access',
      operationId: 'createCatalogGrant',
      tags: ['admin'],
      protect: true,
      summary: 'Grant an organization access to a private category',
      description: '409 when the grant exists; 400 when the category is not private; 404 for unknown ids.',
    },
  })
  .input(z.strictObject({ org_id: z.uuid(), category_id: z.uuid() }))
  .output(z.object({ grant: GrantSchema }))
  .mutation(async ({ ctx, input }) => ({
    grant: toGrant(await createGrant(ctx.user, { orgId: input.org_id, categoryId: input.category_id })),
  }));
