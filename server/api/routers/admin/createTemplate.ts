import { z } from 'zod';
import { createTemplate } from '../../../domain/catalog/templateAdmin';
import { adminProcedure } from '../../trpc';
import { AdminTemplateSchema, templateValuesFrom, toAdminTemplate } from '../../schemas/admin';
import { CreateTemplateInput } from '../../schemas/templateInput';

export const createTemplateProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/admin/templates',
      operationId: 'createTemplate',
      tags: ['admin'],
      protect: true,
      summary: 'Create a template',
      description:
        'name, slug, category_id and image_name are required; other fields default. 409 when the slug is ' +
        'taken; 404 for an unknown category_id or org_id; 400 naming the field for invalid values.',
    },
  })
  .input(CreateTemplateInput)
  .output(z.object({ template: AdminTemplateSchema }))
  .mutation(async ({ ctx, input }) => {
    const values = templateValuesFrom(input);
    const row = await createTemplate(ctx.user, {
      ...values,
      name: input.name,
      slug: input.slug,
      categoryId: input.category_id,
      imageName: input.image_name,
    });
    return { template: toAdminTemplate(row) };
  });
