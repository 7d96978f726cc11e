/** Shapes shared by the machine-token routes. */
import { z } from '@hono/zod-openapi';
import { RoleSchema } from '../../schemas';

export const TokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: RoleSchema,
    prefix: z.string(),
    status: z.enum(['active', 'expired', 'revoked']),
    created_at: z.string(),
    created_by: z.string(),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
  })
  .openapi('MachineToken');

export const IssuedTokenSchema = TokenSchema.extend({
  token: z.string().openapi({ description: 'The full svm_ token; shown only in this answer' }),
}).openapi('IssuedMachineToken');
