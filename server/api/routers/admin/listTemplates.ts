import { z } from 'zod';
import { listAdminTemplates } from '../../../domain/catalog/templateAdmin';
import { adminProcedure } from '../../trpc';
import { AdminTemplateSchema, toAdminTemplate } from '../../schemas/admin';
import { PaginationSchema, pageInput, pagination, resolvePage } from '../../schemas/query';
import { TemplateFiltersInput } from '../catalog/listTemplates';

export const listTemplatesProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/templates',
      operationId: 'listAllTemplates',
      tags: ['admin'],
      protect: true,
      summary: 'All templates, private and organization-owned included, with the admin-only fields',
      description:
        'Filters and pagination as GET /catalog/templates. registry_credentials is masked ("********") or null.',
    },
  })
  .input(z.object({ ...TemplateFiltersInput, ...pageInput }))
  .output(z.object({ templates: z.array(AdminTemplateSchema), pagination: PaginationSchema }))
  .query(async ({ input }) => {
    const page = resolvePage(input);
    const { rows, total } = await listAdminTemplates(input, page);
    return { templates: rows.map(toAdminTemplate), pagination: pagination(page, total) };
  });
