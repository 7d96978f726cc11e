/** Shapes shared by the secret routes. */
import { z } from '@hono/zod-openapi';
import { SECRET_NAME } from '../../../domain/secrets';

export const SecretInfoSchema = z
  .object({ name: z.string(), description: z.string(), created_at: z.string(), updated_at: z.string() })
  .openapi('SecretInfo');

export const NameParamSchema = z.object({
  name: z
    .string()
    .regex(SECRET_NAME, 'must be 1–128 characters of A–Z, a–z, 0–9, _ . -')
    .openapi({ param: { name: 'name', in: 'path' } }),
});
