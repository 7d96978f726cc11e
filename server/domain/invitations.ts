/**
 * Organization invitations: membership needs the person's consent. An organization admin invites an
 * email address with a role; the signed-in user whose provider-verified email matches (users.email is
 * only ever a verified address, stored lower-cased) accepts or declines it in the dashboard.
 *
 * No account enumeration: inviting never looks the address up among Hub accounts, so the answer (status,
 * body shape, the work done) is the same whether or not someone with that email has signed in. The only
 * refusal that depends on the address is "already a member of your organization", which the admin can
 * read from the member list anyway.
 *
 * Invitations are single-use (pending → accepted | declined | revoked, never back), expire after
 * INVITATION_TTL_DAYS, and one pending invitation exists per organization and email (inviting again
 * replaces it). Every change locks the organization row, like the member operations in members.ts.
 */
import { and, asc, count, desc, eq, gt, lte, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { getDb, type Tx } from '../db/client';
import { orgInvitations, organizations, users } from '../db/schema';
import { announceChange } from '../db/invalidation';
import { writeAudit, type AuditActor } from './audit';
import { ServiceError } from './errors';
import { lockOrganization } from './members';
import type { OrgRole, UserPrincipal } from './principal';
import { normalizeEmail } from './users';

export const INVITATION_TTL_DAYS = 7;
/** Pending (unexpired) invitations one organization may have at once. */
export const MAX_PENDING_INVITATIONS = 100;

const inviter = alias(users, 'inviter');

const invitationColumns = {
  id: orgInvitations.id,
  orgId: orgInvitations.orgId,
  email: orgInvitations.email,
  role: orgInvitations.role,
  status: orgInvitations.status,
  createdAt: orgInvitations.createdAt,
  expiresAt: orgInvitations.expiresAt,
  invitedBy: orgInvitations.invitedBy,
  inviterName: inviter.name,
  inviterEmail: inviter.email,
};

export type InvitationRow = {
  id: string;
  orgId: string;
  email: string;
  role: OrgRole;
  status: 'pending' | 'accepted' | 'declined' | 'revoked';
  createdAt: Date;
  expiresAt: Date;
  invitedBy: string | null;
  inviterName: string | null;
  inviterEmail: string | null;
};

const stillPending = () => and(eq(orgInvitations.status, 'pending'), gt(orgInvitations.expiresAt, sql`now()`));

/** Invites `email` with `role`. The same answer whether or not the address has a Hub account. */
export async function createInvitation(
  actor: UserPrincipal,
  orgId: string,
  input: { email: string; role: OrgRole },
): Promise<InvitationRow> {
  const db = await getDb();
  const email = normalizeEmail(input.email);
  return db.transaction(async (tx) => {
    if (!(await lockOrganization(tx, orgId))) throw new ServiceError('not_found', 'Organization not found');
    const [member] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.email, email), eq(users.orgId, orgId)));
    if (member) throw new ServiceError('conflict', 'email: this person is already a member of your organization');
    // Inviting again replaces the pending invitation (expired or not): one pending per organization and email.
    const replaced = await tx
      .update(orgInvitations)
      .set({ status: 'revoked', respondedAt: sql`now()` })
      .where(
        and(eq(orgInvitations.orgId, orgId), eq(orgInvitations.email, email), eq(orgInvitations.status, 'pending')),
      )
      .returning({ id: orgInvitations.id });
    const [pending] = await tx
      .select({ n: count() })
      .from(orgInvitations)
      .where(and(eq(orgInvitations.orgId, orgId), stillPending()));
    if ((pending?.n ?? 0) >= MAX_PENDING_INVITATIONS) {
      throw new ServiceError(
        'conflict',
        `Your organization has ${MAX_PENDING_INVITATIONS} pending invitations; revoke some or wait for answers first`,
      );
    }
    const [row] = await tx
      .insert(orgInvitations)
      .values({
        orgId,
        email,
        role: input.role,
        invitedBy: actor.userId,
        expiresAt: sql`now() + make_interval(days => ${INVITATION_TTL_DAYS})`,
      })
      .returning();
    await writeAudit(tx, {
      actor,
      action: 'invitation.create',
      targetType: 'invitation',
      targetId: row!.id,
      orgId,
      details: { email, role: input.role, ...(replaced.length ? { replaces: replaced[0]!.id } : {}) },
    });
    return { ...row!, inviterName: actor.name, inviterEmail: actor.email };
  });
}

/** The organization's pending, unexpired invitations, newest first. */
export async function listOrgInvitations(orgId: string): Promise<InvitationRow[]> {
  const db = await getDb();
  return db
    .select(invitationColumns)
    .from(orgInvitations)
    .leftJoin(inviter, eq(inviter.id, orgInvitations.invitedBy))
    .where(and(eq(orgInvitations.orgId, orgId), stillPending()))
    .orderBy(desc(orgInvitations.createdAt), asc(orgInvitations.id));
}

/** Revokes a pending invitation of the organization. Another organization's id: 404. Revoking twice: no-op. */
export async function revokeInvitation(actor: AuditActor, orgId: string, id: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    if (!(await lockOrganization(tx, orgId))) throw new ServiceError('not_found', 'Organization not found');
    const [inv] = await tx
      .select()
      .from(orgInvitations)
      .where(and(eq(orgInvitations.id, id), eq(orgInvitations.orgId, orgId)))
      .for('update');
    if (!inv) throw new ServiceError('not_found', 'id: no such invitation in your organization');
    if (inv.status === 'revoked') return inv;
    if (inv.status !== 'pending') throw new ServiceError('conflict', `This invitation was already ${inv.status}`);
    const [revoked] = await tx
      .update(orgInvitations)
      .set({ status: 'revoked', respondedAt: sql`now()` })
      .where(eq(orgInvitations.id, id))
      .returning();
    await writeAudit(tx, {
      actor,
      action: 'invitation.revoke',
      targetType: 'invitation',
      targetId: id,
      orgId,
      details: { email: inv.email, role: inv.role },
    });
    return revoked!;
  });
}

/** Pending, unexpired invitations addressed to the user's (verified) email, from active organizations. */
export async function listReceivedInvitations(user: UserPrincipal) {
  const db = await getDb();
  return db
    .select({ ...invitationColumns, orgName: organizations.name, orgSlug: organizations.slug })
    .from(orgInvitations)
    .innerJoin(organizations, eq(organizations.id, orgInvitations.orgId))
    .leftJoin(inviter, eq(inviter.id, orgInvitations.invitedBy))
    .where(
      and(eq(orgInvitations.email, normalizeEmail(user.email)), stillPending(), eq(organizations.status, 'active')),
    )
    .orderBy(desc(orgInvitations.createdAt), asc(orgInvitations.id));
}

/**
 * The invitation `id` addressed to the user, locked. Anyone else's invitation, or no such id: the same
 * 404. The user's email is read in the transaction (not from the credential), so it is the current one.
 */
async function ownInvitationForUpdate(tx: Tx, userId: string, id: string) {
  const [me] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
  const [inv] = me
    ? await tx
        .select({ ...invitationColumns, expired: lte(orgInvitations.expiresAt, sql`now()`) })
        .from(orgInvitations)
        .leftJoin(inviter, eq(inviter.id, orgInvitations.invitedBy))
        .where(and(eq(orgInvitations.id, id), eq(orgInvitations.email, normalizeEmail(me.email))))
        .for('update', { of: orgInvitations })
    : [];
  if (!inv) throw new ServiceError('not_found', 'id: no such invitation for you');
  if (inv.status !== 'pending') throw new ServiceError('conflict', `This invitation was already ${inv.status}`);
  if (inv.expired)
    throw new ServiceError('conflict', 'This invitation has expired; ask the organization for a new one');
  return inv;
}

/** Joins the invitation's organization with its role. 409 when the user already belongs to one. */
export async function acceptInvitation(actor: UserPrincipal, id: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    // Lock order as everywhere: the organization first. Find it without locking, then re-check under lock.
    const [peek] = await tx
      .select({ orgId: orgInvitations.orgId })
      .from(orgInvitations)
      .where(eq(orgInvitations.id, id));
    if (peek) await lockOrganization(tx, peek.orgId);
    const inv = await ownInvitationForUpdate(tx, actor.userId, id);
    const [org] = await tx
      .select({ status: organizations.status, name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, inv.orgId));
    if (!org) throw new ServiceError('not_found', 'id: no such invitation for you');
    if (org.status !== 'active')
      throw new ServiceError('conflict', 'This organization is suspended; its invitations cannot be accepted now');
    const [joined] = await tx
      .update(users)
      .set({ orgId: inv.orgId, orgRole: inv.role, orgJoinedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(users.id, actor.userId), sql`${users.orgId} is null`))
      .returning({ id: users.id, email: users.email });
    if (!joined)
      throw new ServiceError(
        'conflict',
        'You already belong to an organization; leave it first to accept this invitation',
      );
    await tx
      .update(orgInvitations)
      .set({ status: 'accepted', respondedAt: sql`now()` })
      .where(eq(orgInvitations.id, id));
    await announceChange(tx, 'auth');
    // One record for the one change: the user joined (by accepting invitation_id).
    await writeAudit(tx, {
      actor,
      action: 'member.add',
      targetType: 'user',
      targetId: joined.id,
      orgId: inv.orgId,
      details: { email: joined.email, role: inv.role, invitation_id: id },
    });
    return { orgId: inv.orgId, orgName: org.name, role: inv.role };
  });
}

export async function declineInvitation(actor: UserPrincipal, id: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const inv = await ownInvitationForUpdate(tx, actor.userId, id);
    await tx
      .update(orgInvitations)
      .set({ status: 'declined', respondedAt: sql`now()` })
      .where(eq(orgInvitations.id, id));
    await writeAudit(tx, {
      actor,
      action: 'invitation.decline',
      targetType: 'invitation',
      targetId: id,
      orgId: inv.orgId,
      details: { email: inv.email, role: inv.role },
    });
    return { id };
  });
}
