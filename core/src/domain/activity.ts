/**
 * The activity log: every write by anyone — a person, the temporary admin, a machine token, through
 * the REST API or MCP — as who, what, target and before → after. Each domain write calls
 * recordActivity with its own transaction, so a write and its record commit (or fail) together.
 * before/after hold the fields that describe the target; a secret's value never appears (only that it
 * was set or changed).
 */
import { and, count, desc, eq, gte, lte, or, type SQL } from 'drizzle-orm';
import type { Db, Queryable } from '../db/client';
import { activity } from '../db/schema';
import { ServiceError } from './errors';
import { pagination } from '@shared/ops';
import { type Page, type Principal } from './principal';
import { actorLabel } from './principal';

/** How the write arrived. */
export type Via = 'api' | 'mcp' | 'hub_mcp' | 'cli' | 'engine' | 'system';

/** Who writes: derived once from the principal (actorOf) and passed to every domain write. */
export interface Actor {
  kind: Principal['kind'] | 'cli' | 'engine' | 'system';
  id: string;
  label: string;
  via: Via;
}

export function actorOf(p: Principal, via: 'api' | 'mcp' = 'api'): Actor {
  const id = p.kind === 'machine_token' ? p.tokenId : p.kind === 'temporary_admin' ? p.username : p.userId;
  const hub = (p.kind === 'local' || p.kind === 'oidc') && p.hub;
  return { kind: p.kind, id, label: actorLabel(p), via: via === 'mcp' && hub ? 'hub_mcp' : via };
}

/** The operator at the command line (core CLI). */
export const CLI_ACTOR: Actor = { kind: 'cli', id: 'cli', label: 'cli', via: 'cli' };

/** The container engine, for what happened on its side (a crash, an OOM kill) as the reconciler saw it. */
export const ENGINE_ACTOR: Actor = { kind: 'engine', id: 'engine', label: 'container engine', via: 'engine' };

/** Core itself, for what it does at start (a migration that moves credential literals into secrets). */
export const SYSTEM_ACTOR: Actor = { kind: 'system', id: 'system', label: 'system', via: 'system' };

/** A person provisioned at sign-in (OIDC) is their own actor. */
export const selfActor = (user: { id: string; email: string; kind: 'local' | 'oidc' }): Actor => ({
  kind: user.kind,
  id: user.id,
  label: user.email,
  via: 'api',
});

export const TARGET_TYPES = ['user', 'machine_token', 'secret', 'settings', 'hub', 'catalog', 'deployment'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export interface ActivityEntry {
  action: string;
  target: { type: TargetType; id: string; name: string };
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** Keeps only the fields that changed (both sides), so an update shows exactly what it did. */
export function changed(before: Record<string, unknown>, after: Record<string, unknown>) {
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
      b[key] = before[key] ?? null;
      a[key] = after[key] ?? null;
    }
  }
  return { before: b, after: a };
}

export async function recordActivity(tx: Queryable, actor: Actor, entry: ActivityEntry) {
  await tx.insert(activity).values({
    actorKind: actor.kind,
    actorId: actor.id,
    actor: actor.label,
    via: actor.via,
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    targetName: entry.target.name,
    before: entry.before ?? null,
    after: entry.after ?? null,
  });
}

export interface ActivityFilter {
  actor?: string;
  action?: string;
  target_type?: TargetType;
  target_id?: string;
  since?: Date;
  until?: Date;
}

const present = (r: typeof activity.$inferSelect) => ({
  id: String(r.id),
  at: r.at.toISOString(),
  actor: { kind: r.actorKind, id: r.actorId, label: r.actor },
  via: r.via,
  action: r.action,
  target: { type: r.targetType, id: r.targetId, name: r.targetName },
  before: r.before ?? null,
  after: r.after ?? null,
});

export type ActivityRecord = ReturnType<typeof present>;

export async function listActivity(db: Db, filter: ActivityFilter, page: Page) {
  if (filter.since && filter.until && filter.since > filter.until)
    throw new ServiceError('invalid', 'since: must not be after until');
  const conditions: SQL[] = [];
  // actor matches the id (user id, token id, username) or the label (email, token:<name>).
  if (filter.actor) conditions.push(or(eq(activity.actorId, filter.actor), eq(activity.actor, filter.actor))!);
  if (filter.action) conditions.push(eq(activity.action, filter.action));
  if (filter.target_type) conditions.push(eq(activity.targetType, filter.target_type));
  if (filter.target_id) conditions.push(eq(activity.targetId, filter.target_id));
  if (filter.since) conditions.push(gte(activity.at, filter.since));
  if (filter.until) conditions.push(lte(activity.at, filter.until));
  const where = conditions.length ? and(...conditions) : undefined;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(activity)
      .where(where)
      .orderBy(desc(activity.at), desc(activity.id))
      .limit(page.limit)
      .offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(activity).where(where),
  ]);
  return { entries: rows.map(present), pagination: pagination(page, total?.n ?? 0) };
}

/** The newest entries, for the overview (an index scan on activity_at_idx, no count). */
export async function recentActivity(db: Db, limit: number) {
  const rows = await db.select().from(activity).orderBy(desc(activity.at), desc(activity.id)).limit(limit);
  return rows.map(present);
}
