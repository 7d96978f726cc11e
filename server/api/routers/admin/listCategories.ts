import { z } from 'zod';
import { listAdminCategories } from '../../../domain/catalog/categoryAdmin';
import { adminProcedure } from '../../trpc';
import { AdminCategorySchema, toAdminCategory } from '../../schemas/admin';

export const listCategoriesProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/categories',
      operationId: 'listAllCategories',
      tags: ['admin'],
      protect: true,
      summary: 'All categories with template_count (all templates) and access_count (organizations with a grant)',
    },
  })
  .input(z.object({}))
  .output(z.object({ categories: z.array(AdminCategorySchema) }))
  .query(async () => ({ categories: (await listAdminCategories()).map(toAdminCategory) }));
