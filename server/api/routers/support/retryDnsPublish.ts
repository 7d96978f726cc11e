import { ServiceError } from '../../../domain/errors';
import { z } from 'zod';
import { retryDnsPublish } from '../../../domain/support/dns';
import { adminProcedure } from '../../trpc';
import { PublishState } from '../../schemas/support';

/** Dashboard, platform admins: push a pending or failed DNS record again now. */
export const retryDnsPublishProcedure = adminProcedure
  .input(z.object({ instance_id: z.uuid() }))
  .output(
    z
      .object({
        hostname: z.string(),
        publish_state: PublishState,
        error: z.string().nullable(),
        deleting: z.boolean(),
      })
      .nullable(),
  )
  .mutation(async ({ ctx, input }) => {
    const row = await retryDnsPublish(ctx.user, input.instance_id);
    if (!row) throw new ServiceError('not_found', 'This instance has no DNS record (it may just have been removed)');
    return {
      hostname: row.hostname,
      publish_state: row.publishState,
      error: row.publishError,
      deleting: row.deletedAt !== null,
    };
  });
