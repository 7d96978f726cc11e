/**
 * The fleet at a glance: what the admin overview and an organization admin's account page show. Read from the
 * daily rollups (usage.ts) and the small per-instance tables (instance_keys, instance_reports,
 * instance_sync_state) only: never a count over mcp_calls, support tickets or the template list.
 *
 * Catalog freshness of an instance = time since its last successful sync (a complete `updates` answer).
 * Stale when that is more than 3 × its poll interval (as the Hub observes it) or more than 24 h;
 * "never" when it has not completed one.
 */
import { and, asc, desc, eq, gte, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import { getDb } from '../db/client';
import {
  instanceKeys,
  instanceReports,
  instanceSyncState,
  instanceUsageDaily,
  organizations,
  templateDownloadsDaily,
  templates,
  ticketsDaily,
  type InstanceUrlChange,
} from '../db/schema';
import { paginate, type Page } from './paginate';
import { utcDay } from './usage';

export type FleetScope = { kind: 'admin' } | { kind: 'org'; orgId: string };
export type Freshness = 'fresh' | 'stale' | 'never';
export const FRESHNESS: readonly Freshness[] = ['fresh', 'stale', 'never'];
export const SERIES_DAYS = 30;
const STALE_MAX_S = 86_400;

export interface DayPoint {
  day: string;
  downloads: number;
  activeInstances: number;
  polls: number;
  notModified: number;
  mcpOk: number;
  mcpRefusedHub: number;
  mcpRefusedInstance: number;
  mcpUpstreamError: number;
  ticketsOpened: number;
  ticketsClosed: number;
}

function firstDay(days: number, now: Date): string {
  return utcDay(new Date(now.getTime() - (days - 1) * 86_400_000));
}

/** The last `days` UTC days (today included), every day present, zeros where nothing happened. */
export async function fleetSeries(scope: FleetScope, now = new Date(), days = SERIES_DAYS): Promise<DayPoint[]> {
  const db = await getDb();
  const from = firstDay(days, now);
  const u = instanceUsageDaily;
  const usageWhere = and(gte(u.day, from), scope.kind === 'org' ? eq(u.orgId, scope.orgId) : undefined);
  const ticketWhere = and(
    gte(ticketsDaily.day, from),
    scope.kind === 'org' ? eq(ticketsDaily.orgId, scope.orgId) : undefined,
  );
  const int = (c: SQL) => sql<number>`coalesce(sum(${c}), 0)::int`;
  const [usage, tickets] = await Promise.all([
    db
      .select({
        day: u.day,
        downloads: int(sql`${u.downloads}`),
        activeInstances: sql<number>`count(*) filter (where ${u.polls} > 0 or ${u.downloads} > 0)::int`,
        polls: int(sql`${u.polls}`),
        notModified: int(sql`${u.notModified}`),
        mcpOk: int(sql`${u.mcpOk}`),
        mcpRefusedHub: int(sql`${u.mcpRefusedHub}`),
        mcpRefusedInstance: int(sql`${u.mcpRefusedInstance}`),
        mcpUpstreamError: int(sql`${u.mcpUpstreamError}`),
      })
      .from(u)
      .where(usageWhere)
      .groupBy(u.day),
    db
      .select({
        day: ticketsDaily.day,
        opened: int(sql`${ticketsDaily.opened}`),
        closed: int(sql`${ticketsDaily.closed}`),
      })
      .from(ticketsDaily)
      .where(ticketWhere)
      .groupBy(ticketsDaily.day),
  ]);
  const byDay = new Map(usage.map((r) => [r.day, r]));
  const ticketsByDay = new Map(tickets.map((r) => [r.day, r]));
  const out: DayPoint[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const day = utcDay(new Date(now.getTime() - i * 86_400_000));
    const r = byDay.get(day);
    const t = ticketsByDay.get(day);
    out.push({
      day,
      downloads: r?.downloads ?? 0,
      activeInstances: r?.activeInstances ?? 0,
      polls: r?.polls ?? 0,
      notModified: r?.notModified ?? 0,
      mcpOk: r?.mcpOk ?? 0,
      mcpRefusedHub: r?.mcpRefusedHub ?? 0,
      mcpRefusedInstance: r?.mcpRefusedInstance ?? 0,
      mcpUpstreamError: r?.mcpUpstreamError ?? 0,
      ticketsOpened: t?.opened ?? 0,
      ticketsClosed: t?.closed ?? 0,
    });
  }
  return out;
}

export interface TopTemplate {
  id: string;
  slug: string;
  name: string;
  downloads: number;
}

/** The most read templates over the last `days` days (platform-wide; admin only). */
export async function topTemplates(days: number, limit = 10, now = new Date()): Promise<TopTemplate[]> {
  const db = await getDb();
  const d = templateDownloadsDaily;
  const top = db
    .select({ templateId: d.templateId, downloads: sql<number>`sum(${d.downloads})::int`.as('downloads') })
    .from(d)
    .where(gte(d.day, firstDay(days, now)))
    .groupBy(d.templateId)
    .orderBy(sql`2 desc`)
    .limit(limit)
    .as('top');
  return db
    .select({ id: templates.id, slug: templates.slug, name: templates.name, downloads: top.downloads })
    .from(top)
    .innerJoin(templates, eq(templates.id, top.templateId))
    .orderBy(desc(top.downloads), asc(templates.name));
}

/** Active instance keys by the Core version they last reported ("unknown" when none). */
export async function instancesByVersion(scope: FleetScope): Promise<{ version: string; instances: number }[]> {
  const db = await getDb();
  const rows = await db
    .select({
      version: sql<string>`coalesce(${instanceReports.version}, 'unknown')`,
      instances: sql<number>`count(*)::int`,
    })
    .from(instanceKeys)
    .leftJoin(instanceReports, eq(instanceReports.instanceKeyId, instanceKeys.id))
    .where(
      and(eq(instanceKeys.status, 'active'), scope.kind === 'org' ? eq(instanceKeys.orgId, scope.orgId) : undefined),
    )
    .groupBy(sql`1`)
    .orderBy(sql`2 desc`, sql`1`);
  return rows;
}

export interface HealthFilters {
  search?: string;
  freshness?: Freshness;
  version?: string;
}

export interface InstanceHealth {
  id: string;
  name: string;
  orgId: string;
  orgName: string;
  version: string | null;
  baseUrl: string | null;
  lastSeenAt: Date | null;
  lastSyncAt: Date | null;
  lastCheckedAt: string | null;
  pollIntervalS: number | null;
  freshnessS: number | null;
  freshness: Freshness;
  polls30d: number;
  mcp30d: { ok: number; refusedHub: number; refusedInstance: number; upstreamError: number };
  /** Changes of its mcp_url or base_url no organization admin has acknowledged yet (support/instances.ts). */
  urlChanges: InstanceUrlChange[];
}

/** The staleness threshold in seconds: 3 × the poll interval, at most 24 h. */
const thresholdS = sql`least(${STALE_MAX_S}, coalesce(3 * ${instanceSyncState.pollIntervalS}, ${STALE_MAX_S}))`;
const freshnessExpr = sql<Freshness>`case when ${instanceSyncState.lastSyncAt} is null then 'never'
  when extract(epoch from (now() - ${instanceSyncState.lastSyncAt})) > ${thresholdS} then 'stale' else 'fresh' end`;

/** The instance health table: active keys, stale ones first, then by name; one page. */
export async function instanceHealth(scope: FleetScope, filters: HealthFilters, page: Page, now = new Date()) {
  const db = await getDb();
  const conditions: (SQL | undefined)[] = [eq(instanceKeys.status, 'active')];
  if (scope.kind === 'org') conditions.push(eq(instanceKeys.orgId, scope.orgId));
  if (filters.search) {
    const like = `%${filters.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(
      or(ilike(instanceKeys.name, like), ilike(organizations.name, like), ilike(instanceReports.baseUrl, like)),
    );
  }
  if (filters.freshness) conditions.push(sql`${freshnessExpr} = ${filters.freshness}`);
  if (filters.version) {
    conditions.push(
      filters.version === 'unknown' ? isNull(instanceReports.version) : eq(instanceReports.version, filters.version),
    );
  }
  const where = and(...conditions);
  const from = firstDay(SERIES_DAYS, now);
  const base = () =>
    db
      .select({
        id: instanceKeys.id,
        name: instanceKeys.name,
        orgId: instanceKeys.orgId,
        orgName: organizations.name,
        version: instanceReports.version,
        baseUrl: instanceReports.baseUrl,
        lastSeenAt:
          sql<Date | null>`greatest(${instanceKeys.lastUsedAt}, ${instanceSyncState.lastPollAt}, ${instanceReports.reportedAt})`.mapWith(
            (v) => (v === null ? null : new Date(v)),
          ),
        lastSyncAt: instanceSyncState.lastSyncAt,
        lastCheckedAt: instanceSyncState.lastCheckedAt,
        pollIntervalS: instanceSyncState.pollIntervalS,
        freshness: freshnessExpr,
        urlChanges: instanceReports.urlChanges,
      })
      .from(instanceKeys)
      .innerJoin(organizations, eq(organizations.id, instanceKeys.orgId))
      .leftJoin(instanceReports, eq(instanceReports.instanceKeyId, instanceKeys.id))
      .leftJoin(instanceSyncState, eq(instanceSyncState.instanceKeyId, instanceKeys.id))
      .where(where);
  const { rows, total } = await paginate(
    page,
    (w) =>
      base()
        .orderBy(
          sql`case ${freshnessExpr} when 'stale' then 0 when 'never' then 1 else 2 end`,
          asc(instanceKeys.name),
          asc(instanceKeys.id),
        )
        .limit(w.limit)
        .offset(w.offset),
    () =>
      db
        .select({ n: sql<number>`count(*)::int` })
        .from(instanceKeys)
        .innerJoin(organizations, eq(organizations.id, instanceKeys.orgId))
        .leftJoin(instanceReports, eq(instanceReports.instanceKeyId, instanceKeys.id))
        .leftJoin(instanceSyncState, eq(instanceSyncState.instanceKeyId, instanceKeys.id))
        .where(where),
  );
  const ids = rows.map((r) => r.id);
  const u = instanceUsageDaily;
  const usage =
    ids.length === 0
      ? []
      : await db
          .select({
            id: u.instanceKeyId,
            polls: sql<number>`sum(${u.polls})::int`,
            ok: sql<number>`sum(${u.mcpOk})::int`,
            refusedHub: sql<number>`sum(${u.mcpRefusedHub})::int`,
            refusedInstance: sql<number>`sum(${u.mcpRefusedInstance})::int`,
            upstreamError: sql<number>`sum(${u.mcpUpstreamError})::int`,
          })
          .from(u)
          .where(and(gte(u.day, from), sql`${u.instanceKeyId} = any(${`{${ids.join(',')}}`}::uuid[])`))
          .groupBy(u.instanceKeyId);
  const byId = new Map(usage.map((r) => [r.id, r]));
  const health: InstanceHealth[] = rows.map((r) => {
    const x = byId.get(r.id);
    return {
      ...r,
      urlChanges: r.urlChanges ?? [],
      freshnessS: r.lastSyncAt ? Math.max(0, Math.round((now.getTime() - r.lastSyncAt.getTime()) / 1000)) : null,
      polls30d: x?.polls ?? 0,
      mcp30d: {
        ok: x?.ok ?? 0,
        refusedHub: x?.refusedHub ?? 0,
        refusedInstance: x?.refusedInstance ?? 0,
        upstreamError: x?.upstreamError ?? 0,
      },
    };
  });
  return { rows: health, total };
}

/** Everything the overview shows, in one call (the page's one query). */
export async function fleetOverview(scope: FleetScope, filters: HealthFilters, page: Page, now = new Date()) {
  const [series, versions, health, top7, top30] = await Promise.all([
    fleetSeries(scope, now),
    instancesByVersion(scope),
    instanceHealth(scope, filters, page, now),
    scope.kind === 'admin' ? topTemplates(7, 10, now) : Promise.resolve([]),
    scope.kind === 'admin' ? topTemplates(30, 10, now) : Promise.resolve([]),
  ]);
  return { series, versions, health, top7, top30, staleAfterMaxS: STALE_MAX_S };
}
