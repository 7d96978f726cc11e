import { z } from 'zod';
import { getInstanceInfo } from '../../../domain/support/instances';
import { instanceProcedure } from '../../trpc';
import { InstanceInfoSchema, toInstanceInfo } from '../../schemas/support';

export const getInstanceInfoProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/instance-info',
      operationId: 'getInstanceInfo',
      tags: ['instance'],
      protect: true,
      summary: 'The calling instance: its key, organization (with tier), last report and DNS record',
      description:
        'Instance key only. A Core instance calls this to check its key and learn its organization and tier.',
    },
  })
  .input(z.object({}))
  .output(InstanceInfoSchema)
  .query(async ({ ctx }) => toInstanceInfo(await getInstanceInfo(ctx.instance.keyId)));
