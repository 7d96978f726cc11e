/**
 * Platform administration of users: list, platform role changes, deletion.
 * Rules: only a superadmin may grant or revoke superadmin (or delete a superadmin); the last superadmin
 * cannot be demoted or deleted (409); a user who is the last admin of an organization that has other
 * members cannot be deleted (409: promote another member first). Role changes and deletions take one
 * advisory lock so that the "last superadmin" check holds under concurrency; deleting a member also
 * locks the organization row, like membership changes do.
 * Deleting a user removes their membership and (by foreign key cascade) their personal access tokens;
 * their JWTs are refused at once because the resolver reads the user on every request.
 */
import { ServiceError } from './errors';
import { and, asc, count, eq, ilike, ne, sql, type SQL } from 'drizzle-orm';
import { getDb, type Tx } from '../db/client';
import { organizations, personalAccessTokens, users } from '../db/schema';
import { writeAudit } from './audit';
import { announceChange } from '../db/invalidation';
import { lockOrganization, otherAdminCount } from './members';
import type { PlatformRole, UserPrincipal } from './principal';
import { paginate } from './paginate';

const PLATFORM_ROLE_LOCK = 72_620_003;

const adminUserSelection = {
  id: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  createdAt: users.createdAt,
  orgId: users.orgId,
  orgRole: users.orgRole,
  orgName: organizations.name,
  orgSlug: organizations.slug,
  orgStatus: organizations.status,
  orgTier: organizations.tier,
};

export interface UserListFilters {
  search?: string;
  role?: PlatformRole;
  orgId?: string;
}

export async function listUsers(filters: UserListFilters, { page, limit }: { page: number; limit: number }) {
  const db = await getDb();
  const conditions: SQL[] = [];
  if (filters.search)
    conditions.push(ilike(users.email, `%${filters.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
  if (filters.role) conditions.push(eq(users.role, filters.role));
  if (filters.orgId) conditions.push(eq(users.orgId, filters.orgId));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  return paginate(
    { page, limit },
    (window) =>
      db
        .select(adminUserSelection)
        .from(users)
        .leftJoin(organizations, eq(organizations.id, users.orgId))
        .where(where)
        .orderBy(asc(users.email), asc(users.id))
        .limit(window.limit)
        .offset(window.offset),
    () => db.select({ n: count() }).from(users).where(where),
  );
}

async function lockTarget(tx: Tx, id: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(${PLATFORM_ROLE_LOCK})`);
  const [target] = await tx.select().from(users).where(eq(users.id, id)).for('update');
  if (!target) throw new ServiceError('not_found', 'id: no such user');
  return target;
}

async function otherSuperadmins(tx: Tx, id: string) {
  const [row] = await tx
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, 'superadmin'), ne(users.id, id)));
  return row?.n ?? 0;
}

const superadminOnly = (): never => {
  throw new ServiceError('forbidden', 'role: only a superadmin may grant or revoke the superadmin role');
};

export async function updateUserRole(actor: UserPrincipal, id: string, role: PlatformRole) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const target = await lockTarget(tx, id);
    if ((role === 'superadmin' || target.role === 'superadmin') && actor.role !== 'superadmin' && role !== target.role)
      superadminOnly();
    if (target.role === 'superadmin' && role !== 'superadmin' && (await otherSuperadmins(tx, id)) === 0) {
      throw new ServiceError(
        'conflict',
        'This is the last superadmin and cannot be demoted; make another user superadmin first',
      );
    }
    await tx
      .update(users)
      .set({ role, updatedAt: sql`now()` })
      .where(eq(users.id, id));
    await writeAudit(tx, {
      actor,
      action: 'user.update_role',
      targetType: 'user',
      targetId: id,
      orgId: target.orgId,
      details: { email: target.email, role: { from: target.role, to: role } },
    });
    const [row] = await tx
      .select(adminUserSelection)
      .from(users)
      .leftJoin(organizations, eq(organizations.id, users.orgId))
      .where(eq(users.id, id));
    return row!;
  });
}

export async function deleteUser(actor: UserPrincipal, id: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const target = await lockTarget(tx, id);
    if (target.role === 'superadmin') {
      if (actor.role !== 'superadmin') throw new ServiceError('forbidden', 'Only a superadmin may delete a superadmin');
      if ((await otherSuperadmins(tx, id)) === 0) {
        throw new ServiceError(
          'conflict',
          'This is the last superadmin and cannot be deleted; make another user superadmin first',
        );
      }
    }
    if (target.orgId) {
      await lockOrganization(tx, target.orgId);
      if (target.orgRole === 'admin' && (await otherAdminCount(tx, target.orgId, id)) === 0) {
        const [others] = await tx
          .select({ n: count() })
          .from(users)
          .where(and(eq(users.orgId, target.orgId), ne(users.id, id)));
        if ((others?.n ?? 0) > 0) {
          throw new ServiceError(
            'conflict',
            'This user is the last admin of an organization that has other members; make another member admin first',
          );
        }
      }
    }
    const tokens = await tx
      .delete(personalAccessTokens)
      .where(eq(personalAccessTokens.userId, id))
      .returning({ id: personalAccessTokens.id });
    await tx.delete(users).where(eq(users.id, id));
    await announceChange(tx, 'auth');
    await writeAudit(tx, {
      actor,
      action: 'user.delete',
      targetType: 'user',
      targetId: id,
      orgId: target.orgId,
      details: { email: target.email, role: target.role, org_role: target.orgRole, tokens_deleted: tokens.length },
    });
    return target;
  });
}
