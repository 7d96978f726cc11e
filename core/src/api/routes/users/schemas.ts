/** Shapes shared by the user routes. Never a password hash. */
import { z } from '@hono/zod-openapi';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../domain/users';
import { RoleSchema } from '../../schemas';

export const UserSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: RoleSchema,
    kind: z.enum(['local', 'oidc']),
    created_at: z.string(),
  })
  .openapi('User');

export const password = z.string().min(PASSWORD_MIN).max(PASSWORD_MAX);
export const email = z.email().max(320);
export const name = z.string().max(200);
