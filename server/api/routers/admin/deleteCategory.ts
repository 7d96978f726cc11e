import { z } from 'zod';
import { deleteCategory } from '../../../domain/catalog/categoryAdmin';
import { adminProcedure } from '../../trpc';

export const deleteCategoryProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/admin/categories',
      operationId: 'deleteCategory',
      tags: ['admin'],
      protect: true,
      summary: 'Delete a category (id in the JSON body or as ?id=)',
      description:
        '409 while any template references it (the message says how many). Its access grants are removed with it.',
    },
  })
  .input(z.object({ id: z.uuid() }))
  .output(z.object({ deleted: z.object({ id: z.uuid(), slug: z.string() }) }))
  .mutation(async ({ ctx, input }) => {
    const row = await deleteCategory(ctx.user, input.id);
    return { deleted: { id: row.id, slug: row.slug } };
  });
