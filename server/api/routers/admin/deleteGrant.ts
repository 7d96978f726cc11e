import { z } from 'zod';
import { deleteGrant } from '../../../domain/catalog/grants';
import { adminProcedure } from '../../trpc';
import { GrantSchema, toGrant } from '../../schemas/admin';

export const deleteGrantProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/admin/catalog-access',
      operationId: 'deleteCatalogGrant',
      tags: ['admin'],
      protect: true,
      summary: 'Revoke an access grant: by id, or by org_id together with category_id (JSON body or query)',
      description:
        'The organization’s instances receive the category’s templates in removed on their next /catalog/templates/updates.',
    },
  })
  .input(
    z
      .object({ id: z.uuid().optional(), org_id: z.uuid().optional(), category_id: z.uuid().optional() })
      .superRefine((v, ctx) => {
        if (v.id !== undefined) {
          if (v.org_id !== undefined || v.category_id !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: ['id'],
              message: 'give either id, or org_id with category_id, not both',
            });
          }
          return;
        }
        if (v.org_id === undefined)
          ctx.addIssue({ code: 'custom', path: ['org_id'], message: 'required with category_id when no id is given' });
        if (v.category_id === undefined)
          ctx.addIssue({ code: 'custom', path: ['category_id'], message: 'required with org_id when no id is given' });
      }),
  )
  .output(z.object({ deleted: GrantSchema }))
  .mutation(async ({ ctx, input }) => {
    const grant = await deleteGrant(
      ctx.user,
      input.id !== undefined ? { id: input.id } : { orgId: input.org_id!, categoryId: input.category_id! },
    );
    return { deleted: toGrant(grant) };
  });
