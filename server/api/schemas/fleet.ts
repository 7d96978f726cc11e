/** The fleet overview's wire shape (admin and organization admins), shared by both procedures. */
import { z } from 'zod';
import { FRESHNESS, type fleetOverview } from '../../domain/fleet';
import { PaginationSchema, pageInput, pagination } from './query';

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export const fleetInput = z.object({
  search: z.string().trim().max(200).optional().describe('Instance name, organization name or base URL contains'),
  freshness: z
    .enum(FRESHNESS)
    .optional()
    .describe('fresh | stale (no successful sync for > 3 × its poll interval or > 24 h) | never'),
  version: z.string().trim().max(100).optional().describe('Reported Core version; "unknown" for none'),
  ...pageInput,
});

const int = z.number().int();

export const FleetOverviewSchema = z.object({
  series: z
    .array(
      z.object({
        day: z.string().describe('UTC day, YYYY-MM-DD'),
        downloads: int,
        active_instances: int.describe('Instance keys that polled or read a template that day'),
        polls: int,
        not_modified: int,
        mcp_ok: int,
        mcp_refused_hub: int,
        mcp_refused_instance: int,
        mcp_upstream_error: int,
        tickets_opened: int,
        tickets_closed: int,
      }),
    )
    .describe('The last 30 UTC days, oldest first'),
  top_templates_7d: z.array(z.object({ id: z.uuid(), slug: z.string(), name: z.string(), downloads: int })),
  top_templates_30d: z.array(z.object({ id: z.uuid(), slug: z.string(), name: z.string(), downloads: int })),
  versions: z.array(z.object({ version: z.string(), instances: int })),
  instances: z.array(
    z.object({
      id: z.uuid(),
      name: z.string(),
      org_id: z.uuid(),
      org_name: z.string(),
      version: z.string().nullable(),
      base_url: z.string().nullable(),
      last_seen_at: z.string().nullable(),
      last_sync_at: z.string().nullable().describe('Last complete updates answer (successful sync)'),
      last_checked_at: z.string().nullable().describe("That answer's checked_at"),
      poll_interval_s: int.nullable().describe('Poll interval as the Hub observes it'),
      freshness_s: int.nullable().describe('Seconds since the last successful sync'),
      freshness: z.enum(FRESHNESS),
      polls_30d: int,
      mcp_30d: z.object({ ok: int, refused_hub: int, refused_instance: int, upstream_error: int }),
      url_changes: z
        .array(
          z.object({
            at: z.string().describe('When the instance reported the new URL'),
            field: z.enum(['mcp_url', 'base_url']),
            from: z.string().nullable(),
            to: z.string().nullable(),
            key_prefix: z
              .string()
              .describe('The instance key secret that made the change (a re-issue gives a new one)'),
          }),
        )
        .describe(
          'Changes of an already registered mcp_url or base_url not yet acknowledged by an organization admin, oldest first',
        ),
    }),
  ),
  pagination: PaginationSchema,
  stale_after_max_s: int,
});

export function toFleetOverview(o: Awaited<ReturnType<typeof fleetOverview>>, page: { page: number; limit: number }) {
  return {
    series: o.series.map((d) => ({
      day: d.day,
      downloads: d.downloads,
      active_instances: d.activeInstances,
      polls: d.polls,
      not_modified: d.notModified,
      mcp_ok: d.mcpOk,
      mcp_refused_hub: d.mcpRefusedHub,
      mcp_refused_instance: d.mcpRefusedInstance,
      mcp_upstream_error: d.mcpUpstreamError,
      tickets_opened: d.ticketsOpened,
      tickets_closed: d.ticketsClosed,
    })),
    top_templates_7d: o.top7,
    top_templates_30d: o.top30,
    versions: o.versions,
    instances: o.health.rows.map((r) => ({
      id: r.id,
      name: r.name,
      org_id: r.orgId,
      org_name: r.orgName,
      version: r.version,
      base_url: r.baseUrl,
      last_seen_at: isoOrNull(r.lastSeenAt),
      last_sync_at: isoOrNull(r.lastSyncAt),
      last_checked_at: r.lastCheckedAt,
      poll_interval_s: r.pollIntervalS,
      freshness_s: r.freshnessS,
      freshness: r.freshness,
      polls_30d: r.polls30d,
      mcp_30d: {
        ok: r.mcp30d.ok,
        refused_hub: r.mcp30d.refusedHub,
        refused_instance: r.mcp30d.refusedInstance,
        upstream_error: r.mcp30d.upstreamError,
      },
      url_changes: r.urlChanges,
    })),
    pagination: pagination(page, o.health.total),
    stale_after_max_s: o.staleAfterMaxS,
  };
}
