import { z } from 'zod';
import { updateTemplate } from '../../../domain/catalog/templateAdmin';
import { adminProcedure } from '../../trpc';
import { AdminTemplateSchema, templateValuesFrom, toAdminTemplate } from '../../schemas/admin';
import { UpdateTemplateInput } from '../../schemas/templateInput';

export const updateTemplateProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/admin/templates',
      operationId: 'updateTemplate',
      tags: ['admin'],
      protect: true,
      summary: 'Update a template (partial; id in the body); updated_at is bumped',
      description:
        'Only the fields sent change. registry_credentials: a new value replaces it, null removes it, "********" keeps it.',
    },
  })
  .input(UpdateTemplateInput)
  .output(z.object({ template: AdminTemplateSchema }))
  .mutation(async ({ ctx, input }) => {
    const { id, ...fields } = input;
    return { template: toAdminTemplate(await updateTemplate(ctx.user, id, templateValuesFrom(fields))) };
  });
