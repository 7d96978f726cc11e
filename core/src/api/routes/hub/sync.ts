/** POST /api/v1/catalog/sync (admin): sync now and answer when done. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { recordActivity } from '../../../domain/activity';
import { actor, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';
import { badGateway } from './schemas';

const SyncResultSchema = z
  .object({
    added: z.number().int(),
    updated: z.number().int(),
    removed: z.number().int(),
    checked_at: z.string(),
    not_modified: z
      .boolean()
      .describe('The Hub answered 304 Not Modified to the poll (If-None-Match): nothing changed since checked_at'),
  })
  .openapi('SyncResult');

const route = createRoute({
  method: 'post',
  path: '/api/v1/catalog/sync',
  tags: ['hub'],
  operationId: 'syncCatalog',
  summary: 'Sync the catalog from the Hub now',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  responses: {
    200: json(SyncResultSchema, 'Synced: what changed in the local copy'),
    ...errors(401, 403, 404, 409),
    ...badGateway('The Hub’s problem, in the message'),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const who = actor(c);
    // What the sync changes is recorded as the caller's in its own transaction (domain/catalog.ts applySync); a sync
    // that found nothing new is recorded here, so that who asked is still on record.
    const result = await core.catalogSync.syncNow(who);
    const { not_modified, added, updated, removed } = result;
    if (added + updated + removed === 0) {
      await recordActivity(core.db, who, {
        action: 'catalog.sync',
        target: { type: 'catalog', id: 'catalog', name: 'catalog' },
        after: { added, updated, removed, not_modified },
      });
    }
    return c.json(result, 200);
  });
