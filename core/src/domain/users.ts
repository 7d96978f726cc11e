/**
 * People: local users and OIDC users. The last admin can be neither deleted nor demoted; the check
 * and the change run in one transaction under an advisory lock, so concurrent changes cannot both
 * pass it. The temporary admin is not a row and never counts.
 */
import { pagination } from '@shared/ops';
import { hash, verify } from '@node-rs/argon2';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Queryable, Tx } from '../db/client';
import { oidcBlockedIdentities, refreshTokens, users } from '../db/schema';
import { changed, recordActivity, selfActor, type Actor } from './activity';
import { ServiceError, isUniqueViolation, notFound } from './errors';
import { type Page } from './principal';
import type { Role } from './roles';

const ADMIN_LOCK = 72_620_101;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export type UserRow = typeof users.$inferSelect;

export function publicUser(u: UserRow) {
  return { id: u.id, email: u.email, name: u.name, role: u.role, kind: u.kind, created_at: u.createdAt.toISOString() };
}

export function checkPassword(password: string) {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw new ServiceError('invalid', `password: must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
}

export const hashPassword = (password: string) => hash(password, { algorithm: 2 /* Argon2id */ });
export const verifyPassword = (hashed: string, password: string) => verify(hashed, password);

export async function listUsers(db: Db, page: Page) {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(users)
      .orderBy(users.createdAt, users.id)
      .limit(page.limit)
      .offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(users),
  ]);
  return { users: rows.map(publicUser), pagination: pagination(page, total?.n ?? 0) };
}

export async function getUser(db: Queryable, id: string): Promise<UserRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export async function findLocalUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.kind, 'local'), sql`lower(${users.email}) = ${email.toLowerCase()}`));
  return row;
}

async function uniqueEmail<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ServiceError('conflict', 'email: a local user with this email already exists');
    throw err;
  }
}

/** What the activity log shows of a user (never the password hash). */
const described = (u: UserRow) => ({ email: u.email, name: u.name, role: u.role, kind: u.kind });

export async function createLocalUser(
  db: Db,
  input: { email: string; password: string; role: Role; name?: string },
  actor: Actor,
) {
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  const row = await uniqueEmail(() =>
    db.transaction(async (tx) => {
      const [created] = await tx
        .insert(users)
        .values({ kind: 'local', email: input.email, name: input.name ?? '', role: input.role, passwordHash })
        .returning();
      await recordActivity(tx, actor, {
        action: 'user.create',
        target: { type: 'user', id: created!.id, name: created!.email },
        after: described(created!),
      });
      return created!;
    }),
  );
  return publicUser(row);
}

/**
 * The user `id` as it is now (undefined when there is none), read for a change that `losesAdmin` under the lock that
 * serializes every such change, and checked there: the last admin is neither deleted nor demoted. Read after the
 * lock, so that no concurrent change (a demotion, a promotion, a delete) falls between the read and the check.
 */
async function lockedTarget(tx: Tx, id: string, losesAdmin: boolean): Promise<UserRow | undefined> {
  if (losesAdmin) await tx.execute(sql`select pg_advisory_xact_lock(${ADMIN_LOCK})`);
  const target = await getUser(tx, id);
  if (!target || !losesAdmin || target.role !== 'admin') return target;
  const [admins] = await tx.select({ n: count() }).from(users).where(eq(users.role, 'admin'));
  if ((admins?.n ?? 0) <= 1)
    throw new ServiceError('conflict', 'the last admin cannot be deleted or demoted; make another user admin first');
  return target;
}

export async function updateUser(
  db: Db,
  id: string,
  patch: { email?: string; name?: string; role?: Role; password?: string },
  actor: Actor,
) {
  if (patch.password !== undefined) checkPassword(patch.password);
  const passwordHash = patch.password !== undefined ? await hashPassword(patch.password) : undefined;
  return uniqueEmail(() =>
    db.transaction(async (tx) => {
      const target = await lockedTarget(tx, id, patch.role === 'readonly');
      if (!target) throw notFound('user');
      if (target.kind === 'oidc' && (patch.email !== undefined || patch.password !== undefined)) {
        throw new ServiceError(
          'invalid',
          `${patch.email !== undefined ? 'email' : 'password'}: an OIDC user's sign-in is managed by the identity provider`,
        );
      }
      const [row] = await tx
        .update(users)
        .set({ email: patch.email, name: patch.name, role: patch.role, passwordHash, updatedAt: new Date() })
        .where(eq(users.id, id))
        .returning();
      // Deleted meanwhile (a change that keeps the role takes no lock).
      if (!row) throw notFound('user');
      // A new password ends the user's sessions (their refresh tokens); access tokens run out within minutes.
      if (passwordHash)
        await tx
          .update(refreshTokens)
          .set({ revokedAt: new Date() })
          .where(and(eq(refreshTokens.userId, id), isNull(refreshTokens.revokedAt)));
      const diff = changed(described(target), described(row!));
      if (passwordHash) {
        diff.before.password = 'set';
        diff.after.password = 'changed';
      }
      await recordActivity(tx, actor, {
        action: 'user.update',
        target: { type: 'user', id, name: row!.email },
        ...diff,
      });
      return publicUser(row!);
    }),
  );
}

/** Deletes a person; an OIDC person is blocked too, so that their next token does not provision them again. */
export async function deleteUser(db: Db, id: string, actor: Actor) {
  await db.transaction(async (tx) => {
    const target = await lockedTarget(tx, id, true);
    if (!target) throw notFound('user');
    await tx.delete(users).where(eq(users.id, id));
    if (target.kind === 'oidc' && target.oidcIssuer && target.oidcSubject) {
      await tx
        .insert(oidcBlockedIdentities)
        .values({ issuer: target.oidcIssuer, subject: target.oidcSubject, email: target.email, blockedBy: actor.label })
        .onConflictDoNothing();
    }
    await recordActivity(tx, actor, {
      action: 'user.delete',
      target: { type: 'user', id, name: target.email },
      before: described(target),
    });
  });
}

export async function listBlockedIdentities(db: Db) {
  const rows = await db.select().from(oidcBlockedIdentities).orderBy(oidcBlockedIdentities.blockedAt);
  return {
    blocked: rows.map((r) => ({
      id: r.id,
      issuer: r.issuer,
      subject: r.subject,
      email: r.email,
      blocked_by: r.blockedBy,
      blocked_at: r.blockedAt.toISOString(),
    })),
  };
}

/** Re-admits a removed OIDC person: their next sign-in provisions them afresh (default role or groups). */
export async function readmitIdentity(db: Db, id: string) {
  const gone = isUuid(id)
    ? await db
        .delete(oidcBlockedIdentities)
        .where(eq(oidcBlockedIdentities.id, id))
        .returning({ id: oidcBlockedIdentities.id })
    : [];
  if (gone.length === 0) throw notFound('removed person');
}

/**
 * The user behind an OIDC identity, provisioned on first sight with the default role, or admin when
 * one of their groups is an admin group. An identity an admin deleted is refused (not provisioned again)
 * until an admin re-admits it.
 *
 * With CORE_OIDC_ADMIN_GROUPS set, the provider's groups decide who is admin, re-read at every sign-in
 * (every token Core checks): leaving the group demotes to the default role, joining promotes. A role set
 * by hand in Core for an OIDC person does not win over the groups then (it lasts until their next token);
 * a token with no groups claim at all changes nothing, and the last admin is never demoted this way.
 * Without admin groups, the role set in Core is kept.
 */
export async function provisionOidcUser(
  db: Db,
  identity: { issuer: string; subject: string; email: string | null; name: string | null; groups: string[] | null },
  policy: { defaultRole: Role; adminGroups: string[] },
): Promise<UserRow> {
  const where = and(eq(users.oidcIssuer, identity.issuer), eq(users.oidcSubject, identity.subject));
  const [existing] = await db.select().from(users).where(where);
  const inAdminGroup = (identity.groups ?? []).some((g) => policy.adminGroups.includes(g));
  if (existing) {
    if (policy.adminGroups.length === 0 || identity.groups === null) return existing;
    const wanted: Role = inAdminGroup ? 'admin' : existing.role === 'admin' ? policy.defaultRole : existing.role;
    if (wanted === existing.role) return existing;
    return db.transaction(async (tx) => {
      try {
        // Deleted meanwhile: this token was checked as it began; the person's next one is refused.
        if (!(await lockedTarget(tx, existing.id, wanted !== 'admin'))) return existing;
      } catch (err) {
        if (err instanceof ServiceError) return existing; // the last admin stays admin
        throw err;
      }
      const [row] = await tx
        .update(users)
        .set({ role: wanted, updatedAt: new Date() })
        .where(eq(users.id, existing.id))
        .returning();
      return row ?? existing;
    });
  }
  const [blocked] = await db
    .select({ email: oidcBlockedIdentities.email })
    .from(oidcBlockedIdentities)
    .where(and(eq(oidcBlockedIdentities.issuer, identity.issuer), eq(oidcBlockedIdentities.subject, identity.subject)));
  if (blocked) {
    throw new ServiceError(
      'forbidden',
      `${blocked.email} was removed from this Core instance by an admin; an admin can re-admit them under Users (removed people)`,
    );
  }
  const role: Role = inAdminGroup ? 'admin' : policy.defaultRole;
  await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(users)
      .values({
        kind: 'oidc',
        email: identity.email ?? identity.subject,
        name: identity.name ?? '',
        role,
        oidcIssuer: identity.issuer,
        oidcSubject: identity.subject,
      })
      .onConflictDoNothing()
      .returning();
    // First sign-in: the person provisioned is the actor; a concurrent sign-in that lost the race records nothing.
    if (created) {
      await recordActivity(tx, selfActor({ id: created.id, email: created.email, kind: 'oidc' }), {
        action: 'user.create',
        target: { type: 'user', id: created.id, name: created.email },
        after: { ...described(created), provisioned_by: 'oidc sign-in' },
      });
    }
  });
  const [row] = await db.select().from(users).where(where);
  if (!row) throw new Error('OIDC user missing after insert');
  return row;
}

export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

/** Admin accounts that are rows (local or OIDC): the temporary admin should be gone once one exists. */
export async function countPermanentAdmins(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(eq(users.role, 'admin'));
  return row?.n ?? 0;
}
