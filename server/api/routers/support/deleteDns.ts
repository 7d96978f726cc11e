import { z } from 'zod';
import { deleteDnsRecord } from '../../../domain/support/dns';
import { instanceProcedure } from '../../trpc';

export const deleteDnsProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/dns',
      operationId: 'deleteDnsRecord',
      tags: ['dns'],
      protect: true,
      summary: 'Remove the instance’s DNS record',
      description:
        'deleted is false when there was none. Counts as a change for the rate limit (429 with Retry-After).',
    },
  })
  .input(z.object({}))
  .output(z.object({ deleted: z.boolean() }))
  .mutation(async ({ ctx }) => ({ deleted: await deleteDnsRecord(ctx.instance) }));
