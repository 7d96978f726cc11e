/**
 * Support tickets. An instance opens tickets and follows only its own; organization members see and answer
 * every ticket of their organization; platform admins ("staff") see and answer all and set the status.
 * A reply from the customer side (the instance or an organization member) puts a closed or pending ticket
 * back to open; a staff reply leaves the status alone. Ids outside the caller's scope are "not found".
 */
import { ServiceError } from '../errors';
import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { getDb } from '../../db/client';
import { instanceKeys, organizations, supportMessages, supportTickets, users } from '../../db/schema';
import { writeAudit } from '../audit';
import { isPlatformAdmin, type InstancePrincipal, type UserPrincipal } from '../principal';
import { paginate } from '../paginate';
import { useQuota } from './quotas';
import { countTicket } from '../usage';

export type TicketStatus = 'open' | 'pending' | 'closed';
export type TicketSeverity = 'low' | 'normal' | 'high' | 'urgent';

export type TicketScope =
  { kind: 'instance'; keyId: string; orgId: string } | { kind: 'org'; orgId: string } | { kind: 'admin' };

export function ticketScopeOfInstance(p: InstancePrincipal): TicketScope {
  return { kind: 'instance', keyId: p.keyId, orgId: p.orgId };
}

function scopeCondition(scope: TicketScope): SQL | undefined {
  if (scope.kind === 'instance')
    return and(eq(supportTickets.orgId, scope.orgId), eq(supportTickets.instanceKeyId, scope.keyId));
  if (scope.kind === 'org') return eq(supportTickets.orgId, scope.orgId);
  return undefined;
}

const notFound = (id: string) => new ServiceError('not_found', `Ticket ${id} not found`);

export interface NewTicket {
  subject: string;
  body: string;
  severity: TicketSeverity;
  diagnostics?: Record<string, unknown>;
}

export async function createTicket(instance: InstancePrincipal, input: NewTicket) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await useQuota(tx, 'tickets', instance.orgId, 1);
    const [row] = await tx
      .insert(supportTickets)
      .values({
        orgId: instance.orgId,
        instanceKeyId: instance.keyId,
        subject: input.subject,
        body: input.body,
        severity: input.severity,
        diagnostics: input.diagnostics ?? null,
      })
      .returning();
    await countTicket(tx, instance.orgId, 'opened');
    return row!;
  });
}

const ticketColumns = {
  id: supportTickets.id,
  number: supportTickets.number,
  subject: supportTickets.subject,
  status: supportTickets.status,
  severity: supportTickets.severity,
  createdAt: supportTickets.createdAt,
  updatedAt: supportTickets.updatedAt,
  orgId: supportTickets.orgId,
  orgName: organizations.name,
  orgSlug: organizations.slug,
  instanceId: supportTickets.instanceKeyId,
  instanceName: instanceKeys.name,
  messageCount: sql<number>`(select count(*)::int from ${supportMessages} where ${supportMessages.ticketId} = ${supportTickets.id})`,
};

export interface TicketFilters {
  status?: TicketStatus;
  severity?: TicketSeverity;
  /** Platform admins only; ignored in narrower scopes. */
  orgId?: string;
  instanceId?: string;
}

export async function listTickets(scope: TicketScope, filters: TicketFilters, page: { page: number; limit: number }) {
  const conditions: SQL[] = [];
  const inScope = scopeCondition(scope);
  if (inScope) conditions.push(inScope);
  if (filters.status) conditions.push(eq(supportTickets.status, filters.status));
  if (filters.severity) conditions.push(eq(supportTickets.severity, filters.severity));
  if (filters.orgId && scope.kind === 'admin') conditions.push(eq(supportTickets.orgId, filters.orgId));
  if (filters.instanceId && scope.kind !== 'instance')
    conditions.push(eq(supportTickets.instanceKeyId, filters.instanceId));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const db = await getDb();
  return paginate(
    page,
    (window) =>
      db
        .select(ticketColumns)
        .from(supportTickets)
        .innerJoin(organizations, eq(organizations.id, supportTickets.orgId))
        .leftJoin(instanceKeys, eq(instanceKeys.id, supportTickets.instanceKeyId))
        .where(where)
        .orderBy(desc(supportTickets.createdAt), desc(supportTickets.number))
        .limit(window.limit)
        .offset(window.offset),
    () => db.select({ n: count() }).from(supportTickets).where(where),
  );
}

const authorKey = alias(instanceKeys, 'author_key');

/** The ticket with its messages (oldest first), or 404 outside the scope. */
export async function getTicket(scope: TicketScope, id: string) {
  const db = await getDb();
  const [ticket] = await db
    .select({ ...ticketColumns, body: supportTickets.body, diagnostics: supportTickets.diagnostics })
    .from(supportTickets)
    .innerJoin(organizations, eq(organizations.id, supportTickets.orgId))
    .leftJoin(instanceKeys, eq(instanceKeys.id, supportTickets.instanceKeyId))
    .where(and(eq(supportTickets.id, id), scopeCondition(scope)));
  if (!ticket) throw notFound(id);
  const messages = await db
    .select({
      id: supportMessages.id,
      authorType: supportMessages.authorType,
      authorId: supportMessages.authorId,
      body: supportMessages.body,
      createdAt: supportMessages.createdAt,
      keyName: authorKey.name,
      userName: users.name,
      userEmail: users.email,
    })
    .from(supportMessages)
    .leftJoin(
      authorKey,
      and(eq(supportMessages.authorType, 'instance'), sql`${authorKey.id}::text = ${supportMessages.authorId}`),
    )
    .leftJoin(
      users,
      and(sql`${supportMessages.authorType} <> 'instance'`, sql`${users.id}::text = ${supportMessages.authorId}`),
    )
    .where(eq(supportMessages.ticketId, id))
    .orderBy(asc(supportMessages.createdAt), asc(supportMessages.id));
  return { ticket, messages: messages.map((m) => ({ ...m, authorName: authorName(m) })) };
}

function authorName(m: {
  authorType: 'instance' | 'user' | 'staff';
  keyName: string | null;
  userName: string | null;
  userEmail: string | null;
}) {
  if (m.authorType === 'instance') return m.keyName ?? 'Instance (key deleted)';
  if (m.authorType === 'staff') return m.userName || 'Hub support';
  return m.userName || m.userEmail || 'Former member';
}

export type MessageAuthor =
  { kind: 'instance'; instance: InstancePrincipal } | { kind: 'user'; user: UserPrincipal; staff: boolean };

/** Adds a message; a customer reply (instance or organization member) reopens a closed or pending ticket. */
export async function addTicketMessage(scope: TicketScope, id: string, author: MessageAuthor, body: string) {
  const db = await getDb();
  const customer = author.kind === 'instance' || !author.staff;
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ status: supportTickets.status, orgId: supportTickets.orgId })
      .from(supportTickets)
      .where(and(eq(supportTickets.id, id), scopeCondition(scope)))
      .for('update');
    if (!before) throw notFound(id);
    // Staff answers are the Hub's own data; the quota bounds what customers store.
    if (customer) await useQuota(tx, 'ticket_messages', before.orgId, 1);
    const reopened = customer && before.status !== 'open';
    const [ticket] = await tx
      .update(supportTickets)
      .set({ updatedAt: sql`now()`, ...(reopened ? { status: 'open' as const } : {}) })
      .where(eq(supportTickets.id, id))
      .returning({
        id: supportTickets.id,
        number: supportTickets.number,
        status: supportTickets.status,
        orgId: supportTickets.orgId,
      });
    const actor = author.kind === 'instance' ? author.instance : author.user;
    const [message] = await tx
      .insert(supportMessages)
      .values({
        ticketId: id,
        authorType: author.kind === 'instance' ? 'instance' : author.staff ? 'staff' : 'user',
        authorId: author.kind === 'instance' ? author.instance.keyId : author.user.userId,
        body,
      })
      .returning();
    if (reopened) {
      await writeAudit(tx, {
        actor,
        action: 'support_ticket.status',
        targetType: 'support_ticket',
        targetId: id,
        orgId: ticket!.orgId,
        details: { number: ticket!.number, from: before.status, to: 'open', reason: 'customer reply' },
      });
    }
    return { ticket: ticket!, message: message!, reopened };
  });
}

/** Platform admins set the status; audited. */
export async function setTicketStatus(admin: UserPrincipal, id: string, status: TicketStatus) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ status: supportTickets.status })
      .from(supportTickets)
      .where(eq(supportTickets.id, id))
      .for('update');
    if (!before) throw notFound(id);
    const [ticket] = await tx
      .update(supportTickets)
      .set({ status, updatedAt: sql`now()` })
      .where(eq(supportTickets.id, id))
      .returning({
        id: supportTickets.id,
        number: supportTickets.number,
        status: supportTickets.status,
        orgId: supportTickets.orgId,
        updatedAt: supportTickets.updatedAt,
      });
    await writeAudit(tx, {
      actor: admin,
      action: 'support_ticket.status',
      targetType: 'support_ticket',
      targetId: id,
      orgId: ticket!.orgId,
      details: { number: ticket!.number, from: before.status, to: status },
    });
    if (status === 'closed' && before.status !== 'closed') await countTicket(tx, ticket!.orgId, 'closed');
    return ticket!;
  });
}

/** Dashboard scope of a signed-in user: platform admins every ticket, members their organization's. */
export function ticketScopeOfUser(user: UserPrincipal): TicketScope {
  if (isPlatformAdmin(user)) return { kind: 'admin' };
  if (user.orgId && user.orgRole) return { kind: 'org', orgId: user.orgId };
  throw new ServiceError('forbidden', 'You do not belong to an organization');
}
