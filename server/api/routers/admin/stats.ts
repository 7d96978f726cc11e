import { z } from 'zod';
import { platformStats } from '../../../domain/stats';
import { adminProcedure } from '../../trpc';

export const statsProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/stats',
      operationId: 'getStats',
      tags: ['admin'],
      protect: true,
      summary: 'System-wide counts: users, organizations, active instance keys, templates, categories',
    },
  })
  .input(z.object({}))
  .output(
    z.object({
      users: z.number().int(),
      organizations: z.number().int(),
      apiKeys: z.number().int().describe('Active instance keys'),
      templates: z.number().int(),
      categories: z.number().int(),
    }),
  )
  .query(() => platformStats());
