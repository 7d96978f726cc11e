import { z } from 'zod';
import { listAllInstanceKeys } from '../../../domain/instanceKeyAdmin';
import { adminProcedure } from '../../trpc';
import { KEY_STATUSES } from '../../schemas/account';
import { AdminApiKeySchema, toAdminApiKey } from '../../schemas/admin';
import { PaginationSchema, pageInput, pagination, resolvePage } from '../../schemas/query';

export const listApiKeysProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/api-keys',
      operationId: 'listAllApiKeys',
      tags: ['admin'],
      protect: true,
      summary: 'Instance keys across organizations, with organization names (never secrets)',
    },
  })
  .input(z.object({ org_id: z.uuid().optional(), status: z.enum(KEY_STATUSES).optional(), ...pageInput }))
  .output(z.object({ apiKeys: z.array(AdminApiKeySchema), pagination: PaginationSchema }))
  .query(async ({ input }) => {
    const page = resolvePage(input);
    const { rows, total } = await listAllInstanceKeys({ orgId: input.org_id, status: input.status }, page);
    return { apiKeys: rows.map(toAdminApiKey), pagination: pagination(page, total) };
  });
