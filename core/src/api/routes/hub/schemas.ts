/** Shapes of the Hub connection routes. */
import { z } from '@hono/zod-openapi';
import { ErrorSchema } from '../../schemas';

export const HubSettingsSchema = z
  .union([
    z.object({ configured: z.literal(false) }),
    z.object({
      configured: z.literal(true),
      source: z.enum(['environment', 'settings']),
      hub_url: z.string(),
      key_prefix: z.string().openapi({ description: 'The key itself is never shown again' }),
      instance_id: z
        .string()
        .nullable()
        .openapi({ description: 'The instance key id at the Hub (the audience of its MCP assertions)' }),
      organization: z.object({ id: z.string(), name: z.string(), slug: z.string() }).nullable(),
      connected: z.boolean().openapi({ description: 'The last contact with the Hub succeeded' }),
      key_refused: z
        .boolean()
        .openapi({ description: 'The Hub refused the key (401): sync stopped until a new key is set' }),
      last_sync_at: z.string().nullable(),
      checked_at: z.string().nullable(),
      last_error: z.string().nullable(),
      last_error_at: z.string().nullable(),
      template_count: z.number().int(),
    }),
  ])
  .openapi('HubSettings');

/** A 502: the Hub is unreachable or failing; the message says how (the one error shape, with request_id). */
export const badGateway = (description: string) => ({
  502: { description, content: { 'application/json': { schema: ErrorSchema } } },
});
