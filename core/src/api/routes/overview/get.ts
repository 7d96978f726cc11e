/**
 * GET /api/v1/overview (both roles): what Core's overview page shows — the Hub connection and its last
 * sync (with the last error), catalog size, deployments by status, machine-token requests and MCP tool
 * calls per day (from the daily rollups), and the latest activity.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { recentActivity } from '../../../domain/activity';
import { countTemplates } from '../../../domain/catalog';
import { deploymentsOverview, machineTokenUsage, mcpUsage } from '../../../domain/overview';
import { ROLLUP_DAYS } from '../../../domain/usage';
import type { Router } from '../../hono';
import { BEARER, errors, json } from '../../schemas';
import { ActivityEntrySchema } from '../activity/schemas';
import { OBSERVED_STATES } from '../../../domain/runtimeControl';
import { HubSettingsSchema } from '../hub/schemas';

const n = z.number().int();

/** The container engine as this Core process sees it; readiness (/readyz) carries the same. */
export const EngineStatusSchema = z
  .object({
    state: z.enum(['up', 'down', 'none']).openapi({
      description:
        'up: it answers; down: unreachable (deployments read unknown, desired state is kept); none: CORE_RUNTIME=none',
    }),
    since: z.string().openapi({ description: 'ISO 8601: since when it is in this state' }),
    description: z.string().openapi({ description: 'Which engine, e.g. "docker at unix:///run/podman.sock"' }),
    error: z.string().nullable().openapi({ description: 'Why it is down' }),
  })
  .openapi('EngineStatus');
const OverviewSchema = z
  .object({
    days: n.openapi({ description: 'The series cover this many UTC days, today included' }),
    hub: HubSettingsSchema,
    catalog: z.object({ templates: n }),
    deployments: z.object({
      total: n,
      by_status: z.object({ ok: n, template_missing: n }),
      by_observed_state: z
        .object(
          Object.fromEntries(OBSERVED_STATES.map((s) => [s, n])) as Record<(typeof OBSERVED_STATES)[number], typeof n>,
        )
        .openapi({ description: 'Deployments per observed.state (all unknown while the engine is down or absent)' }),
    }),
    engine: EngineStatusSchema,
    machine_token_requests: z.object({
      days: z.array(z.object({ day: z.string(), '2xx': n, '3xx': n, '4xx': n, '5xx': n })),
      by_token: z.array(z.object({ token_id: z.string(), name: z.string(), total: n, errors: n })),
    }),
    mcp_calls: z.object({
      days: z.array(z.object({ day: z.string(), ok: n, refused: n, error: n })),
      by_tool: z.array(z.object({ tool: z.string(), ok: n, refused: n, error: n, total: n })),
    }),
    recent_activity: z.array(ActivityEntrySchema),
  })
  .openapi('Overview');

const route = createRoute({
  method: 'get',
  path: '/api/v1/overview',
  tags: ['overview'],
  operationId: 'getOverview',
  summary: 'Get the dashboard overview',
  security: BEARER,
  request: {
    query: z.object({
      days: z.coerce
        .number()
        .int()
        .min(1)
        .max(ROLLUP_DAYS)
        .default(30)
        .openapi({ description: `1 to ${ROLLUP_DAYS} (the rollups are kept ${ROLLUP_DAYS} days)` }),
    }),
  },
  responses: { 200: json(OverviewSchema, 'The overview'), ...errors(400, 401) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { days } = c.req.valid('query');
    const [hub, templates, { deployments, engine }, machine_token_requests, mcp_calls, recent_activity] =
      await Promise.all([
        core.hub.status(),
        countTemplates(core.db),
        deploymentsOverview(core.db),
        machineTokenUsage(core.db, days),
        mcpUsage(core.db, days),
        recentActivity(core.db, 8),
      ]);
    return c.json(
      { days, hub, catalog: { templates }, deployments, engine, machine_token_requests, mcp_calls, recent_activity },
      200,
    );
  });
