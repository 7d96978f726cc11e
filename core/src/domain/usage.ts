/**
 * Daily usage rollups (UTC days, kept ROLLUP_DAYS): machine-token requests per token and status class,
 * MCP tool calls per tool and outcome. They are bumped in the same transaction as the raw records
 * (the batched audit insert, the tool-call insert), so a rollup always equals a count over its raw rows;
 * the overview reads only these, never a COUNT over the raw tables.
 */
import { and, asc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db, Queryable } from '../db/client';
import { usageDaily } from '../db/schema';

export const ROLLUP_DAYS = 400;
export type UsageKind = 'machine_token' | 'mcp_tool';

export interface UsageBump {
  day: string;
  kind: UsageKind;
  key: string;
  class: string;
  count: number;
}

/** The UTC day of an instant, as YYYY-MM-DD. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);
export const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/**
 * Adds counts, one upsert for the whole batch. Duplicates are merged first (one statement may not touch a
 * row twice) and rows are sorted, so that concurrent writers lock the same rows in the same order.
 */
export async function bumpUsage(tx: Queryable, bumps: UsageBump[]) {
  const merged = new Map<string, UsageBump>();
  for (const b of bumps) {
    const id = `${b.kind}\u0000${b.day}\u0000${b.key}\u0000${b.class}`;
    const seen = merged.get(id);
    if (seen) seen.count += b.count;
    else merged.set(id, { ...b });
  }
  if (merged.size === 0) return;
  const rows = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  await tx
    .insert(usageDaily)
    .values(rows)
    .onConflictDoUpdate({
      target: [usageDaily.kind, usageDaily.day, usageDaily.key, usageDaily.class],
      set: { count: sql`${usageDaily.count} + excluded.count` },
    });
}

/** Drops days older than the retention; cheap (the table holds a few rows per token or tool and day). */
export async function pruneUsage(db: Queryable, now = new Date()) {
  const cutoff = utcDay(new Date(now.getTime() - ROLLUP_DAYS * 86_400_000));
  await db.delete(usageDaily).where(lt(usageDaily.day, cutoff));
}

/** The last `days` UTC days (today included) of one kind. */
export async function usageSince(db: Db, kind: UsageKind, days: number, now = new Date()) {
  const first = utcDay(new Date(now.getTime() - (days - 1) * 86_400_000));
  return db
    .select({ day: usageDaily.day, key: usageDaily.key, class: usageDaily.class, count: usageDaily.count })
    .from(usageDaily)
    .where(and(eq(usageDaily.kind, kind), gte(usageDaily.day, first)))
    .orderBy(asc(usageDaily.day), asc(usageDaily.key), asc(usageDaily.class));
}

/** The UTC days from `days - 1` days ago to today, oldest first (to fill days without traffic with zeros). */
export function lastDays(days: number, now = new Date()): string[] {
  return Array.from({ length: days }, (_, i) => utcDay(new Date(now.getTime() - (days - 1 - i) * 86_400_000)));
}
