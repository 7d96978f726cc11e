/** Shapes shared by the sign-in routes. */
import { z } from '@hono/zod-openapi';
import { RoleSchema } from '../../schemas';

export const SessionSchema = z
  .object({
    access_token: z.string(),
    refresh_token: z.string().optional().openapi({
      description: 'Absent when the request asked for the HttpOnly cookie instead (X-Core-Session: cookie)',
    }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    user: z.object({
      id: z.string().nullable(),
      email: z.string(),
      name: z.string(),
      role: RoleSchema,
      kind: z.enum(['local', 'temporary_admin']),
    }),
  })
  .openapi('Session');

export const LoginSessionSchema = SessionSchema.extend({
  device_token: z.string().openapi({
    description:
      'Keep it (the web frontend: localStorage) and send it with the next sign-in as device_token: this client is then recognized. ' +
      'It grants nothing by itself and ends when the password changes or the user is deleted',
  }),
}).openapi('LoginSession');

export const RefreshSchema = z
  .strictObject({
    refresh_token: z.string().min(1).max(512).optional().openapi({
      description: 'Required unless the web frontend’s cookie is used (X-Core-Session: cookie, same origin)',
    }),
  })
  .openapi('RefreshRequest');
