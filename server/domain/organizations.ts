/**
 * Organizations: creation by a signed-in user (who becomes its admin, with a free subscription),
 * the caller's view, and the platform admin's list and status/tier changes.
 *
 * Status values: active (default) | suspended — a suspended organization's instance keys and personal
 * access tokens are refused with 403 until it is active again; its members can still sign in.
 * Tier values: free (default) | pro | enterprise — kept equal to the subscription plan.
 */
import { ServiceError } from './errors';
import { and, asc, count, eq, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import { getDb } from '../db/client';
import { instanceKeys, organizations, subscriptions, users } from '../db/schema';
import { writeAudit, type AuditActor } from './audit';
import { isUniqueViolation } from './dbErrors';
import { announceChange } from '../db/invalidation';
import type { UserPrincipal } from './principal';
import { paginate } from './paginate';

export type OrgStatus = (typeof organizations.$inferSelect)['status'];
export type OrgTier = (typeof organizations.$inferSelect)['tier'];

export async function getOrganization(orgId: string) {
  const db = await getDb();
  const [org] = await db.select().from(organizations).where(eq(organizations.id, orgId));
  return org ?? null;
}

function slugTaken(slug: string): never {
  throw new ServiceError('conflict', `slug: the organization slug "${slug}" is already taken`);
}

/** Creates the organization, makes the caller its admin and opens a free subscription: one transaction. */
export async function createOrganization(user: UserPrincipal, input: { name: string; slug: string }) {
  const db = await getDb();
  try {
    return await db.transaction(async (tx) => {
      const [existing] = await tx
        .select({ id: organizations.id })
        .from(organizations)
        .where(eq(organizations.slug, input.slug));
      if (existing) slugTaken(input.slug);
      const [org] = await tx.insert(organizations).values({ name: input.name, slug: input.slug }).returning();
      await tx.insert(subscriptions).values({ orgId: org!.id, plan: 'free' });
      // Only a user without an organization may found one; the condition makes it race-free.
      const [joined] = await tx
        .update(users)
        .set({ orgId: org!.id, orgRole: 'admin', orgJoinedAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(users.id, user.userId), isNull(users.orgId)))
        .returning({ id: users.id });
      if (!joined) {
        throw new ServiceError('conflict', 'You already belong to an organization; leave it before creating another');
      }
      await writeAudit(tx, {
        actor: user,
        action: 'organization.create',
        targetType: 'organization',
        targetId: org!.id,
        orgId: org!.id,
        details: { name: org!.name, slug: org!.slug },
      });
      return org!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) slugTaken(input.slug);
    throw err;
  }
}

const orgColumns = {
  id: organizations.id,
  name: organizations.name,
  slug: organizations.slug,
  status: organizations.status,
  tier: organizations.tier,
  createdAt: organizations.createdAt,
  updatedAt: organizations.updatedAt,
};

// eq() qualifies the columns; bare ${column} inside a sql subquery renders unqualified and binds to the inner table.
const memberCount = sql<number>`(select count(*)::int from ${users} where ${eq(users.orgId, organizations.id)})`;
const activeKeyCount = sql<number>`(select count(*)::int from ${instanceKeys}
  where ${and(eq(instanceKeys.orgId, organizations.id), eq(instanceKeys.status, 'active'))})`;

export interface OrgListFilters {
  search?: string;
  status?: OrgStatus;
  tier?: OrgTier;
}

export async function listOrganizations(filters: OrgListFilters, { page, limit }: { page: number; limit: number }) {
  const db = await getDb();
  const conditions: SQL[] = [];
  if (filters.search) {
    const pattern = `%${filters.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(or(ilike(organizations.name, pattern), ilike(organizations.slug, pattern))!);
  }
  if (filters.status) conditions.push(eq(organizations.status, filters.status));
  if (filters.tier) conditions.push(eq(organizations.tier, filters.tier));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  return paginate(
    { page, limit },
    (window) =>
      db
        .select({ ...orgColumns, memberCount, apiKeyCount: activeKeyCount })
        .from(organizations)
        .where(where)
        .orderBy(asc(organizations.name), asc(organizations.id))
        .limit(window.limit)
        .offset(window.offset),
    () => db.select({ n: count() }).from(organizations).where(where),
  );
}

/** Platform admin: status and/or tier. The subscription plan follows the tier. */
export async function updateOrganization(actor: AuditActor, input: { id: string; status?: OrgStatus; tier?: OrgTier }) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(organizations).where(eq(organizations.id, input.id)).for('update');
    if (!before) throw new ServiceError('not_found', 'id: no such organization');
    const changes: Record<string, { from: string; to: string }> = {};
    if (input.status !== undefined && input.status !== before.status)
      changes.status = { from: before.status, to: input.status };
    if (input.tier !== undefined && input.tier !== before.tier) changes.tier = { from: before.tier, to: input.tier };
    await tx
      .update(organizations)
      .set({
        ...(input.status ? { status: input.status } : {}),
        ...(input.tier ? { tier: input.tier } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(organizations.id, input.id));
    // Cached instance-key look-ups carry the organization's status: drop them in every process.
    if (changes.status) await announceChange(tx, 'auth');
    if (input.tier) {
      await tx
        .insert(subscriptions)
        .values({ orgId: input.id, plan: input.tier })
        .onConflictDoUpdate({ target: subscriptions.orgId, set: { plan: input.tier } });
    }
    await writeAudit(tx, {
      actor,
      action: 'organization.update',
      targetType: 'organization',
      targetId: input.id,
      orgId: input.id,
      details: { changes },
    });
    const [row] = await tx
      .select({ ...orgColumns, memberCount, apiKeyCount: activeKeyCount })
      .from(organizations)
      .where(eq(organizations.id, input.id));
    return row!;
  });
}
