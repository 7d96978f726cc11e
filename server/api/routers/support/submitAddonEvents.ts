import { ServiceError } from '../../../domain/errors';
import { z } from 'zod';
import { ingestAddonEvents } from '../../../domain/support/addonEvents';
import { instanceProcedure } from '../../trpc';
import { AddonEventInputSchema, MAX_BATCH_BYTES, MAX_EVENTS_PER_BATCH } from '../../schemas/support';

export const submitAddonEventsProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/addon-audit-events',
      operationId: 'submitAddonEvents',
      tags: ['addon-audit-events'],
      protect: true,
      summary: 'Ship a batch of addon audit events',
      description:
        `1 to ${MAX_EVENTS_PER_BATCH} events, at most 1 MB (1,048,576 bytes of JSON) per batch, else 413. The whole batch is validated first: ` +
        'one bad event → 400 naming its index (events.<index>.<field>), nothing stored. Events are idempotent by id: ' +
        're-sending a batch stores nothing twice; accepted counts the new events, duplicates the ids already known.',
    },
  })
  .input(
    z.object({
      events: z
        .array(AddonEventInputSchema)
        .min(1, 'must contain at least one event')
        .max(MAX_EVENTS_PER_BATCH, `must contain at most ${MAX_EVENTS_PER_BATCH} events`),
    }),
  )
  .output(z.object({ accepted: z.number().int(), duplicates: z.number().int() }))
  .mutation(async ({ ctx, input }) => {
    const bytes = Buffer.byteLength(JSON.stringify(input.events), 'utf8');
    if (bytes > MAX_BATCH_BYTES) {
      throw new ServiceError(
        'too_large',
        `events: a batch may be at most 1 MB (${MAX_BATCH_BYTES} bytes) of JSON; this one is ${bytes}. Send smaller batches.`,
      );
    }
    return ingestAddonEvents(ctx.instance, input.events);
  });
