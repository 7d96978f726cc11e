import { z } from 'zod';
import { deleteTemplate } from '../../../domain/catalog/templateAdmin';
import { adminProcedure } from '../../trpc';

export const deleteTemplateProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/admin/templates',
      operationId: 'deleteTemplate',
      tags: ['admin'],
      protect: true,
      summary: 'Delete a template (id in the JSON body or as ?id=)',
      description: 'Instances syncing with /catalog/templates/updates receive it in removed.',
    },
  })
  .input(z.object({ id: z.uuid() }))
  .output(z.object({ deleted: z.object({ id: z.uuid(), slug: z.string() }) }))
  .mutation(async ({ ctx, input }) => {
    const row = await deleteTemplate(ctx.user, input.id);
    return { deleted: { id: row.id, slug: row.slug } };
  });
