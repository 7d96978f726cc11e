import { z } from 'zod';
import { updateCategory } from '../../../domain/catalog/categoryAdmin';
import { adminProcedure } from '../../trpc';
import { AdminCategorySchema, toAdminCategory } from '../../schemas/admin';
import { UpdateCategoryInput } from '../../schemas/templateInput';

export const updateCategoryProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/admin/categories',
      operationId: 'updateCategory',
      tags: ['admin'],
      protect: true,
      summary: 'Update a category (partial; id in the body)',
    },
  })
  .input(UpdateCategoryInput)
  .output(z.object({ category: AdminCategorySchema }))
  .mutation(async ({ ctx, input }) => {
    const row = await updateCategory(ctx.user, input.id, {
      name: input.name,
      slug: input.slug,
      description: input.description,
      icon: input.icon,
      sortOrder: input.sort_order,
      isPrivate: input.is_private,
    });
    return { category: toAdminCategory(row) };
  });
