/**
 * GET /api/v1/activity (both roles): who wrote what, newest first, filtered and paged. Readonly callers
 * may read it: it holds no secret value (a secret's entry says only that its value was set or changed).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listActivity, TARGET_TYPES } from '../../../domain/activity';
import type { Router } from '../../hono';
import { BEARER, errors, json, PageQuerySchema, PaginationSchema } from '../../schemas';
import { ActivityEntrySchema } from './schemas';

const instant = (what: string) =>
  z.iso
    .datetime({ offset: true, error: `must be an ISO 8601 date-time, e.g. 2026-01-31T00:00:00Z` })
    .optional()
    .openapi({ description: what });

const ActivityQuerySchema = PageQuerySchema.extend({
  actor: z
    .string()
    .max(320)
    .optional()
    .openapi({ description: 'The actor: a user id, machine token id, email, username or token:<name>' }),
  action: z
    .string()
    .max(100)
    .regex(/^[a-z_]+\.[a-z_]+$/, 'must look like user.update')
    .optional()
    .openapi({ description: 'One action, e.g. user.update, secret.delete, deployment.create' }),
  target_type: z.enum(TARGET_TYPES).optional().openapi({ description: 'What was written' }),
  target_id: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'One target: a user id, token id, secret name, deployment id…' }),
  since: instant('From this instant (inclusive)'),
  until: instant('Up to this instant (inclusive)'),
});

const route = createRoute({
  method: 'get',
  path: '/api/v1/activity',
  tags: ['activity'],
  operationId: 'listActivity',
  summary: 'List the activity log, newest first',
  security: BEARER,
  request: { query: ActivityQuerySchema },
  responses: {
    200: json(
      z.object({ entries: z.array(ActivityEntrySchema), pagination: PaginationSchema }),
      'Writes by anyone, newest first',
    ),
    ...errors(400, 401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { page, limit, since, until, ...filter } = c.req.valid('query');
    const found = await listActivity(
      core.db,
      { ...filter, since: since ? new Date(since) : undefined, until: until ? new Date(until) : undefined },
      { page, limit },
    );
    return c.json(found, 200);
  });
