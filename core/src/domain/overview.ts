/**
 * The overview's figures, from the daily rollups and small tables only: never a COUNT over the raw
 * machine-token audit or the MCP call records (tests/rollups.test.ts checks the statements issued).
 */
import { count, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { catalogTemplates, deployments, machineTokens } from '../db/schema';
import { deploymentsByObservedState } from './deployments';
import { lastDays, usageSince } from './usage';

export const OUTCOMES = ['ok', 'refused', 'error'] as const;

/** Deployments per status: ok (its template is in the catalog) or template_missing. */
export async function deploymentsByStatus(db: Db) {
  const rows = await db
    .select({ present: sql<boolean>`${catalogTemplates.id} is not null`, n: count() })
    .from(deployments)
    .leftJoin(catalogTemplates, sql`${catalogTemplates.id} = ${deployments.templateId}`)
    .groupBy(sql`1`);
  const ok = rows.find((r) => r.present)?.n ?? 0;
  const missing = rows.find((r) => !r.present)?.n ?? 0;
  return { total: ok + missing, by_status: { ok, template_missing: missing } };
}

/**
 * The overview's deployments: per status (template present or missing) and per observed state, with the engine
 * (up, down since when and why, or none): Core's own API stays up while the engine is down, and says so here.
 */
export async function deploymentsOverview(db: Db) {
  const [byStatus, observed] = await Promise.all([deploymentsByStatus(db), deploymentsByObservedState(db)]);
  return { deployments: { ...byStatus, by_observed_state: observed.by_state }, engine: observed.engine };
}

/** Machine-token requests per day and status class, and per token, over the last `days` days. */
export async function machineTokenUsage(db: Db, days: number, now = new Date()) {
  const rows = await usageSince(db, 'machine_token', days, now);
  const perDay = new Map(
    lastDays(days, now).map((d) => [
      d,
      { day: d, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 } as Record<string, number | string>,
    ]),
  );
  const perToken = new Map<string, { total: number; errors: number }>();
  for (const r of rows) {
    const day = perDay.get(r.day);
    if (day) day[r.class] = (Number(day[r.class]) || 0) + r.count;
    const t = perToken.get(r.key) ?? { total: 0, errors: 0 };
    t.total += r.count;
    if (r.class === '4xx' || r.class === '5xx') t.errors += r.count;
    perToken.set(r.key, t);
  }
  const ids = [...perToken.keys()];
  const names = ids.length
    ? await db
        .select({ id: machineTokens.id, name: machineTokens.name })
        .from(machineTokens)
        .where(inArray(machineTokens.id, ids))
    : [];
  const nameOf = new Map(names.map((n) => [n.id, n.name]));
  return {
    days: [...perDay.values()] as { day: string; '2xx': number; '3xx': number; '4xx': number; '5xx': number }[],
    by_token: [...perToken.entries()]
      .map(([id, t]) => ({ token_id: id, name: nameOf.get(id) ?? '(deleted token)', ...t }))
      .sort((a, b) => b.total - a.total || a.name.localeCompare(b.name)),
  };
}

/** MCP tool calls per day and outcome, and per tool and outcome, over the last `days` days. */
export async function mcpUsage(db: Db, days: number, now = new Date()) {
  const rows = await usageSince(db, 'mcp_tool', days, now);
  const perDay = new Map(
    lastDays(days, now).map((d) => [d, { day: d, ok: 0, refused: 0, error: 0 } as Record<string, number | string>]),
  );
  const perTool = new Map<string, { ok: number; refused: number; error: number; total: number }>();
  for (const r of rows) {
    const day = perDay.get(r.day);
    if (day) day[r.class] = (Number(day[r.class]) || 0) + r.count;
    const t = perTool.get(r.key) ?? { ok: 0, refused: 0, error: 0, total: 0 };
    if (r.class === 'ok' || r.class === 'refused' || r.class === 'error') t[r.class] += r.count;
    t.total += r.count;
    perTool.set(r.key, t);
  }
  return {
    days: [...perDay.values()] as { day: string; ok: number; refused: number; error: number }[],
    by_tool: [...perTool.entries()]
      .map(([tool, t]) => ({ tool, ...t }))
      .sort((a, b) => b.total - a.total || a.tool.localeCompare(b.tool)),
  };
}
