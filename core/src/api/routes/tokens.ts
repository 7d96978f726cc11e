/** Machine tokens: listed for both roles; created, re-issued and revoked by admins; each one's audit. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../context';
import { createMachineToken, EXPIRY_MAX_DAYS, EXPIRY_MIN_DAYS, listAudit, listMachineTokens, reissueMachineToken, revokeMachineToken } from '../../domain/machineTokens';
import { actorLabel } from '../../domain/principal';
import { caller, requireAdmin, type Router } from '../hono';
import { BEARER, errors, IdParamSchema, json, jsonBody, PageQuerySchema, PaginationSchema, RoleSchema } from '../schemas';

const TokenSchema = z
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

const IssuedTokenSchema = TokenSchema.extend({ token: z.string().openapi({ description: 'The full svm_ token; shown only in this answer' }) }).openapi(
  'IssuedMachineToken',
);

const CreateTokenSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    role: RoleSchema,
    expires_in_days: z
      .number({ error: `must be an integer from ${EXPIRY_MIN_DAYS} to ${EXPIRY_MAX_DAYS}, or null for no expiry` })
      .int(`must be an integer from ${EXPIRY_MIN_DAYS} to ${EXPIRY_MAX_DAYS}`)
      .min(EXPIRY_MIN_DAYS, `must be from ${EXPIRY_MIN_DAYS} to ${EXPIRY_MAX_DAYS} days`)
      .max(EXPIRY_MAX_DAYS, `must be from ${EXPIRY_MIN_DAYS} to ${EXPIRY_MAX_DAYS} days`)
      .nullish(),
  })
  .openapi('CreateMachineToken');

const AuditRecordSchema = z
  .object({ id: z.string(), token_id: z.string(), method: z.string(), path: z.string(), status: z.number().int(), at: z.string() })
  .openapi('AuditRecord');

const list = createRoute({
  method: 'get',
  path: '/api/v1/tokens',
  tags: ['tokens'],
  security: BEARER,
  request: { query: PageQuerySchema },
  responses: { 200: json(z.object({ tokens: z.array(TokenSchema), pagination: PaginationSchema }), 'Machine tokens'), ...errors(400, 401) },
});

const create = createRoute({
  method: 'post',
  path: '/api/v1/tokens',
  tags: ['tokens'],
  security: BEARER,
  middleware: [requireAdmin('creating machine tokens needs the admin role')] as const,
  request: { body: jsonBody(CreateTokenSchema) },
  responses: { 201: json(IssuedTokenSchema, 'Created; the token is shown this once'), ...errors(400, 401, 403) },
});

const reissue = createRoute({
  method: 'post',
  path: '/api/v1/tokens/{id}/reissue',
  tags: ['tokens'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: { 200: json(IssuedTokenSchema, 'New secret, same id; the old secret no longer works'), ...errors(401, 403, 404, 409) },
});

const revoke = createRoute({
  method: 'delete',
  path: '/api/v1/tokens/{id}',
  tags: ['tokens'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Revoked (final)' }, ...errors(401, 403, 404) },
});

const audit = createRoute({
  method: 'get',
  path: '/api/v1/tokens/{id}/audit',
  tags: ['tokens'],
  security: BEARER,
  request: { params: IdParamSchema, query: PageQuerySchema },
  responses: { 200: json(z.object({ records: z.array(AuditRecordSchema), pagination: PaginationSchema }), 'Requests made with the token, newest first'), ...errors(400, 401, 404) },
});

export function registerTokenRoutes(app: Router, core: CoreContext) {
  app.openapi(list, async (c) => c.json(await listMachineTokens(core.db, c.req.valid('query')), 200));

  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const actor = actorLabel(caller(c));
    const token = await createMachineToken(core.db, { name: body.name, role: body.role, expiresInDays: body.expires_in_days ?? null, createdBy: actor });
    core.log.info('machine token created', { actor, token_id: token.id, role: token.role });
    return c.json(token, 201);
  });

  app.openapi(reissue, async (c) => {
    const token = await reissueMachineToken(core.db, c.req.valid('param').id);
    core.log.info('machine token re-issued', { actor: actorLabel(caller(c)), token_id: token.id });
    return c.json(token, 200);
  });

  app.openapi(revoke, async (c) => {
    const { id } = c.req.valid('param');
    await revokeMachineToken(core.db, id);
    core.log.info('machine token revoked', { actor: actorLabel(caller(c)), token_id: id });
    return c.body(null, 204);
  });

  app.openapi(audit, async (c) => {
    // Records still queued for writing belong in the answer too.
    await core.audit.flush();
    return c.json(await listAudit(core.db, c.req.valid('param').id, c.req.valid('query')), 200);
  });
}
