/**
 * The audit log: who did what to which record, written in the same transaction as the change
 * (pass the transaction, never the outer db). Details are scrubbed of anything secret-looking before
 * they are stored: fields named like secrets are dropped and svh_/svp_ secrets inside strings are masked.
 *
 *   await writeAudit(tx, { actor: ctx.principal, action: 'api_key.create', targetType: 'api_key', targetId: key.id, orgId, details: { name } });
 */
import { and, count, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { getDb } from '../db/client';
import { auditLog } from '../db/schema';
import type { Principal } from './principal';
import { paginate } from './paginate';

/** Who acted: a resolved principal, or the system itself (CLI, background jobs). */
export type AuditActor = Principal | { kind: 'system'; id?: string | null };

export interface AuditEntry {
  actor: AuditActor;
  /** "<target type>.<verb>", e.g. api_key.create, member.remove, template.update. */
  action: string;
  targetType: string;
  targetId?: string | null;
  /** The organization the change concerns, when there is one. */
  orgId?: string | null;
  /** What changed (names, roles, changed field names); never secrets. */
  details?: Record<string, unknown>;
}

/** Field names whose values are never stored in audit details, whatever they contain. */
const SECRET_FIELD = /(^|_)(key|secret|secrets|token|tokens|password|passwd|credential|credentials|hash)$|^registry_?credentials|^authorization$/i;
const SECRET_VALUE = /sv[hpm]_[0-9A-Za-z]{20,}/g;

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(SECRET_VALUE, (s) => `${s.slice(0, 4)}…[redacted]`);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k] = SECRET_FIELD.test(k) && !/prefix/i.test(k) ? '[redacted]' : scrub(v, depth + 1);
  }
  return out;
}

export function scrubAuditDetails(details: Record<string, unknown>): Record<string, unknown> {
  return scrub(details) as Record<string, unknown>;
}

function actorColumns(actor: AuditActor): { actorType: 'user' | 'instance' | 'system'; actorId: string | null } {
  switch (actor.kind) {
    case 'user':
      return { actorType: 'user', actorId: actor.userId };
    case 'instance':
      return { actorType: 'instance', actorId: actor.keyId };
    case 'system':
      return { actorType: 'system', actorId: actor.id ?? null };
    default:
      return { actorType: 'system', actorId: null };
  }
}

/** Appends one audit record using `q` (the transaction of the change). */
export async function writeAudit(q: Queryable, entry: AuditEntry): Promise<void> {
  await q.insert(auditLog).values({
    ...actorColumns(entry.actor),
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId ?? null,
    orgId: entry.orgId ?? null,
    details: scrubAuditDetails(entry.details ?? {}),
  });
}

export interface AuditFilters {
  actorId?: string;
  actorType?: 'user' | 'instance' | 'system';
  targetType?: string;
  targetId?: string;
  orgId?: string;
  action?: string;
  since?: Date;
  until?: Date;
}

export async function listAuditLog(filters: AuditFilters, { page, limit }: { page: number; limit: number }) {
  const db = await getDb();
  const conditions: SQL[] = [];
  if (filters.actorId) conditions.push(eq(auditLog.actorId, filters.actorId));
  if (filters.actorType) conditions.push(eq(auditLog.actorType, filters.actorType));
  if (filters.targetType) conditions.push(eq(auditLog.targetType, filters.targetType));
  if (filters.targetId) conditions.push(eq(auditLog.targetId, filters.targetId));
  if (filters.orgId) conditions.push(eq(auditLog.orgId, filters.orgId));
  if (filters.action) conditions.push(eq(auditLog.action, filters.action));
  if (filters.since) conditions.push(gte(auditLog.createdAt, filters.since));
  if (filters.until) conditions.push(lt(auditLog.createdAt, filters.until));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  return paginate(
    { page, limit },
    (window) =>
      db
        .select()
        .from(auditLog)
        .where(where)
        .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
        .limit(window.limit)
        .offset(window.offset),
    () => db.select({ n: count() }).from(auditLog).where(where),
  );
}
