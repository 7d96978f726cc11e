/**
 * Organization membership (users.orgId / users.orgRole). People join only by accepting an invitation
 * (invitations.ts) and leave by removal or by leaving themselves. Every change locks the organization row, so
 * concurrent changes of one organization are serialized and "at least one admin" holds under any race.
 * Joining sets users.orgJoinedAt = now(); leaving clears it: personal access tokens minted under an
 * earlier membership compare it with their membership_since and stay dead after a re-join.
 */
import { ServiceError } from './errors';
import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import { getDb, type Tx } from '../db/client';
import { organizations, users } from '../db/schema';
import { writeAudit, type AuditActor } from './audit';
import { announceChange } from '../db/invalidation';
import type { OrgRole, UserPrincipal } from './principal';

const memberColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  orgRole: users.orgRole,
  orgJoinedAt: users.orgJoinedAt,
};

export async function listMembers(orgId: string) {
  const db = await getDb();
  return db.select(memberColumns).from(users).where(eq(users.orgId, orgId)).orderBy(asc(users.email), asc(users.id));
}

/** Locks the organization row for the rest of the transaction. */
export async function lockOrganization(tx: Tx, orgId: string) {
  const [org] = await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .for('update');
  return org ?? null;
}

/** Admins of the organization other than `userId`. Call with the organization locked. */
export async function otherAdminCount(tx: Tx, orgId: string, userId: string) {
  const [row] = await tx
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.orgRole, 'admin'), ne(users.id, userId)));
  return row?.n ?? 0;
}

async function memberForUpdate(tx: Tx, orgId: string, userId: string) {
  const [member] = await tx
    .select(memberColumns)
    .from(users)
    .where(and(eq(users.id, userId), eq(users.orgId, orgId)))
    .for('update');
  // Another organization's user, or no such user: the same answer, never revealing which.
  if (!member) throw new ServiceError('not_found', 'user_id: no such member in your organization');
  return member;
}

const lastAdmin = (what: string): never => {
  throw new ServiceError(
    'conflict',
    `This is the organization's last admin and cannot be ${what}; make another member admin first`,
  );
};

export async function updateMemberRole(actor: AuditActor, orgId: string, input: { userId: string; role: OrgRole }) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    if (!(await lockOrganization(tx, orgId))) throw new ServiceError('not_found', 'Organization not found');
    const member = await memberForUpdate(tx, orgId, input.userId);
    if (member.orgRole === 'admin' && input.role !== 'admin' && (await otherAdminCount(tx, orgId, member.id)) === 0)
      lastAdmin('demoted');
    const [updated] = await tx
      .update(users)
      .set({ orgRole: input.role, updatedAt: sql`now()` })
      .where(eq(users.id, member.id))
      .returning(memberColumns);
    await writeAudit(tx, {
      actor,
      action: 'member.update',
      targetType: 'user',
      targetId: member.id,
      orgId,
      details: { email: member.email, role: { from: member.orgRole, to: input.role } },
    });
    return updated!;
  });
}

export async function removeMember(actor: AuditActor, orgId: string, input: { userId: string }) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    if (!(await lockOrganization(tx, orgId))) throw new ServiceError('not_found', 'Organization not found');
    const member = await memberForUpdate(tx, orgId, input.userId);
    if (member.orgRole === 'admin' && (await otherAdminCount(tx, orgId, member.id)) === 0) lastAdmin('removed');
    await tx
      .update(users)
      .set({ orgId: null, orgRole: null, orgJoinedAt: null, updatedAt: sql`now()` })
      .where(eq(users.id, member.id));
    // Whatever a process cached about this member's tokens is stale now.
    await announceChange(tx, 'auth');
    await writeAudit(tx, {
      actor,
      action: 'member.remove',
      targetType: 'user',
      targetId: member.id,
      orgId,
      details: { email: member.email, role: member.orgRole },
    });
    return member;
  });
}

/**
 * The caller leaves their organization (also a suspended one: leaving is the user's own business).
 * Same rules as removal: the last admin cannot leave (409), the membership's personal access tokens die.
 */
export async function leaveOrganization(actor: UserPrincipal) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [me] = await tx.select({ orgId: users.orgId }).from(users).where(eq(users.id, actor.userId));
    if (!me?.orgId) throw new ServiceError('conflict', 'You do not belong to an organization');
    const orgId = me.orgId;
    await lockOrganization(tx, orgId);
    const member = await memberForUpdate(tx, orgId, actor.userId);
    if (member.orgRole === 'admin' && (await otherAdminCount(tx, orgId, member.id)) === 0) {
      throw new ServiceError(
        'conflict',
        "You are the organization's last admin and cannot leave; make another member admin first",
      );
    }
    await tx
      .update(users)
      .set({ orgId: null, orgRole: null, orgJoinedAt: null, updatedAt: sql`now()` })
      .where(eq(users.id, member.id));
    await announceChange(tx, 'auth');
    await writeAudit(tx, {
      actor,
      action: 'member.leave',
      targetType: 'user',
      targetId: member.id,
      orgId,
      details: { email: member.email, role: member.orgRole },
    });
    return { orgId };
  });
}
