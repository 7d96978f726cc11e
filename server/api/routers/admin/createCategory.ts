import { z } from 'zod';
import { createCategory } from '../../../domain/catalog/categoryAdmin';
import { adminProcedure } from '../../trpc';
import { AdminCategorySchema, toAdminCategory } from '../../schemas/admin';
import { CreateCategoryInput } from '../../schemas/templateInput';

export const createCategoryProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/admin/categories',
      operationId: 'createCategory',
      tags: ['admin'],
      protect: true,
      summary: 'Create a category (409 when the slug is taken)',
    },
  })
  .input(CreateCategoryInput)
  .output(z.object({ category: AdminCategorySchema }))
  .mutation(async ({ ctx, input }) => {
    const row = await createCategory(ctx.user, {
      name: input.name,
      slug: input.slug,
      description: input.description,
      icon: input.icon,
      sortOrder: input.sort_order,
      isPrivate: input.is_private,
    });
    return { category: toAdminCategory(row) };
  });
