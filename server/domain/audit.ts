/**
 * The audit log: who did what to which record, written in the same transaction as the change
 * (pass the transaction, never the outer db). Details are scrubbed of anything secret-looking before
 * they are stored: fields named like secrets are dropped and svh_/svp_ secrets inside strings are masked.
 *
 *   await writeAudit(tx, { actor: ctx.principal, action: 'api_key.create', targetType: 'api_key', targetId: key.id, orgId, details: { name } });
 */
import { and, count, desc, eq, gte, inArray, lt, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Queryable } from '../db/client';
import { getDb } from '../db/client';
import {
  accessGrants,
  auditLog,
  categories,
  instanceKeys,
  organizations,
  personalAccessTokens,
  scriptTokens,
  supportTickets,
  templates,
  users,
} from '../db/schema';
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
const SECRET_FIELD =
  /(^|_)(key|secret|secrets|token|tokens|password|passwd|credential|credentials|hash)$|^registry_?credentials|^authorization$/i;
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
  /** Free text: the actor's id exactly, or part of its name or email (users) or name (instance keys). */
  actor?: string;
  targetType?: string;
  targetId?: string;
  /** Free text: the target's id exactly, or part of its current name/slug/email or of the name it was recorded with. */
  target?: string;
  orgId?: string;
  action?: string;
  since?: Date;
  until?: Date;
}

/** An audit record with the names of what it mentions, as they are now (or as last recorded, for deleted things). */
export interface AuditListEntry {
  id: number;
  actorType: 'user' | 'instance' | 'system';
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  orgId: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
  /** User: name (or email when unnamed); instance key: its name; system: null. */
  actorName: string | null;
  actorEmail: string | null;
  /** The organization an acting instance key belongs to. */
  actorOrgId: string | null;
  /** The actor had an id but no longer exists. */
  actorDeleted: boolean;
  targetName: string | null;
  targetEmail: string | null;
  /** The target had an id but no longer exists (targetName is then the name it was recorded with, if any). */
  targetDeleted: boolean;
  orgName: string | null;
}

const UUID_RE = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The text column as a uuid when `guard` holds and it looks like one, else NULL (no cast error, index-usable join). */
function uuidWhen(column: SQL | AnyColumn, guard: SQL): SQL {
  return sql`(case when ${guard} and ${column} ~ ${UUID_RE} then (${column})::uuid end)`;
}

const actorUser = alias(users, 'actor_user');
const actorKey = alias(instanceKeys, 'actor_key');
const targetUser = alias(users, 'target_user');
const targetOrg = alias(organizations, 'target_org');
const targetKey = alias(instanceKeys, 'target_key');
const grantOrg = alias(organizations, 'grant_org');
const grantCategory = alias(categories, 'grant_category');
const contextOrg = alias(organizations, 'context_org');

/** Target types whose id is an instance key's id. */
const KEY_TARGETS = ['api_key', 'instance_key', 'dns_record'];

const typeIs = (column: AnyColumn | SQL.Aliased | SQL, types: string[]) =>
  types.length === 1
    ? sql`${column} = ${types[0]}`
    : sql`${column} in (${sql.join(
        types.map((t) => sql`${t}`),
        sql`, `,
      )})`;
const targetIs = (...types: string[]) => typeIs(auditLog.targetType, types);

/** LIKE pattern for "contains `text`", wildcards in `text` taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function actorCondition(text: string): SQL {
  const like = containsPattern(text);
  return or(
    eq(auditLog.actorId, text),
    inArray(
      auditLog.actorId,
      sql`(select ${users.id}::text from ${users} where ${users.name} ilike ${like} or ${users.email} ilike ${like})`,
    ),
    inArray(
      auditLog.actorId,
      sql`(select ${instanceKeys.id}::text from ${instanceKeys} where ${instanceKeys.name} ilike ${like})`,
    ),
  )!;
}

function targetCondition(text: string): SQL {
  const like = containsPattern(text);
  const named = (
    table:
      | typeof users
      | typeof organizations
      | typeof templates
      | typeof categories
      | typeof instanceKeys
      | typeof personalAccessTokens,
    columns: SQL[],
  ) =>
    sql`(select ${table.id}::text from ${table} where ${sql.join(
      columns.map((c) => sql`${c} ilike ${like}`),
      sql` or `,
    )})`;
  return or(
    eq(auditLog.targetId, text),
    and(targetIs('user'), inArray(auditLog.targetId, named(users, [sql`${users.name}`, sql`${users.email}`]))),
    and(
      targetIs('organization'),
      inArray(auditLog.targetId, named(organizations, [sql`${organizations.name}`, sql`${organizations.slug}`])),
    ),
    and(
      targetIs('template'),
      inArray(auditLog.targetId, named(templates, [sql`${templates.name}`, sql`${templates.slug}`])),
    ),
    and(
      targetIs('category'),
      inArray(auditLog.targetId, named(categories, [sql`${categories.name}`, sql`${categories.slug}`])),
    ),
    and(targetIs(...KEY_TARGETS), inArray(auditLog.targetId, named(instanceKeys, [sql`${instanceKeys.name}`]))),
    and(
      targetIs('personal_access_token'),
      inArray(auditLog.targetId, named(personalAccessTokens, [sql`${personalAccessTokens.name}`])),
    ),
    // The names it was recorded with: deleted things, and renamed ones under their old name.
    sql`${auditLog.details}->>'name' ilike ${like}`,
    sql`${auditLog.details}->>'email' ilike ${like}`,
    sql`${auditLog.details}->>'slug' ilike ${like}`,
    sql`${auditLog.details}->>'hostname' ilike ${like}`,
  )!;
}

function auditWhere(filters: AuditFilters): SQL | undefined {
  const conditions: SQL[] = [];
  if (filters.actorId) conditions.push(eq(auditLog.actorId, filters.actorId));
  if (filters.actorType) conditions.push(eq(auditLog.actorType, filters.actorType));
  if (filters.actor) conditions.push(actorCondition(filters.actor));
  if (filters.targetType) conditions.push(eq(auditLog.targetType, filters.targetType));
  if (filters.targetId) conditions.push(eq(auditLog.targetId, filters.targetId));
  if (filters.target) conditions.push(targetCondition(filters.target));
  if (filters.orgId) conditions.push(eq(auditLog.orgId, filters.orgId));
  if (filters.action) conditions.push(eq(auditLog.action, filters.action));
  if (filters.since) conditions.push(gte(auditLog.createdAt, filters.since));
  if (filters.until) conditions.push(lt(auditLog.createdAt, filters.until));
  return conditions.length > 0 ? and(...conditions) : undefined;
}

/** The name a record gave its target when it was written (deleted targets keep it). */
function recordedName(details: Record<string, unknown>): string | null {
  for (const k of ['name', 'email', 'slug', 'hostname', 'instance_name']) {
    const v = details[k];
    if (typeof v === 'string' && v.trim()) return v;
  }
  if (typeof details.number === 'number') return `#${details.number}`;
  return null;
}

/**
 * The page's records first (the created_at index, LIMIT/OFFSET on audit_log alone), then the names of
 * just those rows joined in — one statement; the joins never touch the rest of the log.
 */
function selectNamedPage(
  db: Awaited<ReturnType<typeof getDb>>,
  where: SQL | undefined,
  window: { limit: number; offset: number },
) {
  const page = db
    .select({
      id: auditLog.id,
      actorType: auditLog.actorType,
      actorId: auditLog.actorId,
      action: auditLog.action,
      targetType: auditLog.targetType,
      targetId: auditLog.targetId,
      orgId: auditLog.orgId,
      details: auditLog.details,
      createdAt: auditLog.createdAt,
    })
    .from(auditLog)
    .where(where)
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(window.limit)
    .offset(window.offset)
    .as('page');
  const target = (...types: string[]) => uuidWhen(page.targetId, typeIs(page.targetType, types));
  return db
    .select({
      id: page.id,
      actorType: page.actorType,
      actorId: page.actorId,
      action: page.action,
      targetType: page.targetType,
      targetId: page.targetId,
      orgId: page.orgId,
      details: page.details,
      createdAt: page.createdAt,
      actorUserName: actorUser.name,
      actorUserEmail: actorUser.email,
      actorKeyName: actorKey.name,
      actorKeyOrgId: actorKey.orgId,
      targetUserName: targetUser.name,
      targetUserEmail: targetUser.email,
      targetOrgName: targetOrg.name,
      templateName: templates.name,
      categoryName: categories.name,
      targetKeyName: targetKey.name,
      patName: personalAccessTokens.name,
      scriptTokenLabel: scriptTokens.label,
      ticketNumber: supportTickets.number,
      ticketSubject: supportTickets.subject,
      grantId: accessGrants.id,
      grantOrgName: grantOrg.name,
      grantCategoryName: grantCategory.name,
      orgName: contextOrg.name,
    })
    .from(page)
    .leftJoin(actorUser, eq(actorUser.id, uuidWhen(page.actorId, sql`${page.actorType} = 'user'`)))
    .leftJoin(actorKey, eq(actorKey.id, uuidWhen(page.actorId, sql`${page.actorType} = 'instance'`)))
    .leftJoin(targetUser, eq(targetUser.id, target('user')))
    .leftJoin(targetOrg, eq(targetOrg.id, target('organization')))
    .leftJoin(templates, eq(templates.id, target('template')))
    .leftJoin(categories, eq(categories.id, target('category')))
    .leftJoin(targetKey, eq(targetKey.id, target(...KEY_TARGETS)))
    .leftJoin(personalAccessTokens, eq(personalAccessTokens.id, target('personal_access_token')))
    .leftJoin(scriptTokens, eq(scriptTokens.id, target('api_token')))
    .leftJoin(supportTickets, eq(supportTickets.id, target('support_ticket')))
    .leftJoin(accessGrants, eq(accessGrants.id, target('access_grant')))
    .leftJoin(grantOrg, eq(grantOrg.id, accessGrants.orgId))
    .leftJoin(grantCategory, eq(grantCategory.id, accessGrants.categoryId))
    .leftJoin(contextOrg, eq(contextOrg.id, page.orgId))
    .orderBy(desc(page.createdAt), desc(page.id));
}

type JoinedRow = Awaited<ReturnType<typeof selectNamedPage>>[number];

/**
 * One page of the audit log, newest first, with the names of actors, targets and organizations joined
 * in the same query (one query for the page, one for the total).
 */
export async function listAuditLog(
  filters: AuditFilters,
  { page, limit }: { page: number; limit: number },
): Promise<{ rows: AuditListEntry[]; total: number }> {
  const db = await getDb();
  const where = auditWhere(filters);
  const result = await paginate(
    { page, limit },
    (window) => selectNamedPage(db, where, window),
    () => db.select({ n: count() }).from(auditLog).where(where),
  );
  return { total: result.total, rows: result.rows.map(named) };
}

function currentTargetName(r: JoinedRow): { name: string | null; email: string | null; found: boolean } {
  switch (r.targetType) {
    case 'user':
      return {
        name: r.targetUserEmail === null ? null : r.targetUserName || r.targetUserEmail,
        email: r.targetUserEmail,
        found: r.targetUserEmail !== null,
      };
    case 'organization':
      return { name: r.targetOrgName, email: null, found: r.targetOrgName !== null };
    case 'template':
      return { name: r.templateName, email: null, found: r.templateName !== null };
    case 'category':
      return { name: r.categoryName, email: null, found: r.categoryName !== null };
    case 'api_key':
    case 'instance_key':
    case 'dns_record':
      return { name: r.targetKeyName, email: null, found: r.targetKeyName !== null };
    case 'personal_access_token':
      return { name: r.patName, email: null, found: r.patName !== null };
    case 'api_token':
      // A script token (Hub JWT with a jti): its row lives until a while after it expires.
      return { name: r.scriptTokenLabel, email: null, found: r.scriptTokenLabel !== null };
    case 'support_ticket':
      return {
        name: r.ticketNumber === null ? null : `#${r.ticketNumber} ${r.ticketSubject ?? ''}`.trim(),
        email: null,
        found: r.ticketNumber !== null,
      };
    case 'access_grant':
      return {
        name: r.grantId === null ? null : `${r.grantOrgName ?? '?'} → ${r.grantCategoryName ?? '?'}`,
        email: null,
        found: r.grantId !== null,
      };
    default:
      return { name: null, email: null, found: false };
  }
}

function named(r: JoinedRow): AuditListEntry {
  const current = currentTargetName(r);
  const details = r.details ?? {};
  const recordedEmail = typeof details.email === 'string' ? details.email : null;
  const actorFound =
    r.actorType === 'user' ? r.actorUserEmail !== null : r.actorType === 'instance' ? r.actorKeyName !== null : true;
  return {
    id: Number(r.id),
    actorType: r.actorType,
    actorId: r.actorId,
    action: r.action,
    targetType: r.targetType,
    targetId: r.targetId,
    orgId: r.orgId,
    details,
    createdAt: r.createdAt,
    actorName:
      r.actorType === 'user' ? r.actorUserName || r.actorUserEmail : r.actorType === 'instance' ? r.actorKeyName : null,
    actorEmail: r.actorUserEmail,
    actorOrgId: r.actorKeyOrgId,
    actorDeleted: r.actorId !== null && !actorFound,
    targetName: current.found ? current.name : recordedName(details),
    targetEmail: current.found ? current.email : r.targetType === 'user' ? recordedEmail : null,
    targetDeleted: r.targetId !== null && !current.found,
    orgName: r.orgName,
  };
}
