/** Shapes of the activity log, shared by its list and the overview. */
import { z } from '@hono/zod-openapi';

export const ActivityEntrySchema = z
  .object({
    id: z.string(),
    at: z.string(),
    actor: z.object({ kind: z.string(), id: z.string(), label: z.string() }),
    via: z
      .string()
      .openapi({ description: 'api, mcp (a machine token on Core’s /mcp), hub_mcp (a person through the Hub) or cli' }),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string(), name: z.string() }),
    before: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: 'The changed fields before the write (null on create)' }),
    after: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: 'The changed fields after the write (null on delete)' }),
  })
  .openapi('ActivityEntry');
