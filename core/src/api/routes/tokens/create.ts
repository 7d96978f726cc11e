/** POST /api/v1/tokens (admin): the full token is in this answer only. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { createMachineToken, EXPIRY_MAX_DAYS, EXPIRY_MIN_DAYS } from '../../../domain/machineTokens';
import { actor, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json, jsonBody, RoleSchema } from '../../schemas';
import { IssuedTokenSchema } from './schemas';

const range = `must be an integer from ${EXPIRY_MIN_DAYS} to ${EXPIRY_MAX_DAYS}, or null for no expiry`;
const CreateTokenSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    role: RoleSchema,
    expires_in_days: z
      .number({ error: range })
      .int(range)
      .min(EXPIRY_MIN_DAYS, range)
      .max(EXPIRY_MAX_DAYS, range)
      .nullish(),
  })
  .openapi('CreateMachineToken');

const route = createRoute({
  method: 'post',
  path: '/api/v1/tokens',
  tags: ['tokens'],
  operationId: 'createMachineToken',
  summary: 'Create a machine token',
  security: BEARER,
  middleware: [requireAdmin('creating machine tokens needs the admin role')] as const,
  request: { body: jsonBody(CreateTokenSchema) },
  responses: { 201: json(IssuedTokenSchema, 'Created; the token is shown this once'), ...errors(400, 401, 403) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const by = actor(c);
    const token = await createMachineToken(
      core.db,
      { name: body.name, role: body.role, expiresInDays: body.expires_in_days ?? null, createdBy: by.label },
      by,
    );
    core.log.info({ actor: by.label, token_id: token.id, role: token.role }, 'machine token created');
    return c.json(token, 201);
  });
