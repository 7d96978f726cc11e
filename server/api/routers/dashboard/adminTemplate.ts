import { ServiceError } from '../../../domain/errors';
import { z } from 'zod';
import { getDb } from '../../../db/client';
import { getAdminTemplate } from '../../../domain/catalog/templateAdmin';
import { adminProcedure } from '../../trpc';
import { AdminTemplateSchema, toAdminTemplate } from '../../schemas/admin';

/** One template with its admin fields, for the edit form (the admin list has no by-id read). */
export const adminTemplateProcedure = adminProcedure
  .input(z.object({ id: z.uuid() }))
  .output(z.object({ template: AdminTemplateSchema }))
  .query(async ({ input }) => {
    const row = await getAdminTemplate(await getDb(), input.id);
    if (!row) throw new ServiceError('not_found', 'id: no such template');
    return { template: toAdminTemplate(row) };
  });
