/**
 * People: local users and OIDC users. The last admin can be neither deleted nor demoted; the check
 * and the change run in one transaction under an advisory lock, so concurrent changes cannot both
 * pass it. The temporary admin is not a row and never counts.
 */
import { hash, verify } from '@node-rs/argon2';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Queryable, Tx } from '../db/client';
import { refreshTokens, users } from '../db/schema';
import { CoreError, isUniqueViolation, notFound } from './errors';
import { pagination, type Page } from './principal';
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
    throw new CoreError('invalid_request', `password: must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
}

export const hashPassword = (password: string) => hash(password, { algorithm: 2 /* Argon2id */ });
export const verifyPassword = (hashed: string, password: string) => verify(hashed, password);

export async function listUsers(db: Db, page: Page) {
  const [rows, [total]] = await Promise.all([
    db.select().from(users).orderBy(users.createdAt, users.id).limit(page.limit).offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(users),
  ]);
  return { users: rows.map(publicUser), pagination: pagination(total?.n ?? 0, page) };
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
    if (isUniqueViolation(err)) throw new CoreError('conflict', 'email: a local user with this email already exists');
    throw err;
  }
}

export async function createLocalUser(db: Db, input: { email: string; password: string; role: Role; name?: string }) {
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  const [row] = await uniqueEmail(() =>
    db
      .insert(users)
      .values({ kind: 'local', email: input.email, name: input.name ?? '', role: input.role, passwordHash })
      .returning(),
  );
  return publicUser(row!);
}

/** Serializes every change that could remove an admin, then refuses to remove the last one. */
async function guardLastAdmin(tx: Tx, target: UserRow, losesAdmin: boolean) {
  if (!losesAdmin || target.role !== 'admin') return;
  await tx.execute(sql`select pg_advisory_xact_lock(${ADMIN_LOCK})`);
  const [admins] = await tx.select({ n: count() }).from(users).where(eq(users.role, 'admin'));
  if ((admins?.n ?? 0) <= 1) throw new CoreError('conflict', 'the last admin cannot be deleted or demoted; make another user admin first');
}

export async function updateUser(
  db: Db,
  id: string,
  patch: { email?: string; name?: string; role?: Role; password?: string },
) {
  if (patch.password !== undefined) checkPassword(patch.password);
  const passwordHash = patch.password !== undefined ? await hashPassword(patch.password) : undefined;
  return uniqueEmail(() =>
    db.transaction(async (tx) => {
      const target = await getUser(tx, id);
      if (!target) throw notFound('user');
      if (target.kind === 'oidc' && (patch.email !== undefined || patch.password !== undefined)) {
        throw new CoreError('invalid_request', `${patch.email !== undefined ? 'email' : 'password'}: an OIDC user's sign-in is managed by the identity provider`);
      }
      await guardLastAdmin(tx, target, patch.role === 'readonly');
      const [row] = await tx
        .update(users)
        .set({ email: patch.email, name: patch.name, role: patch.role, passwordHash, updatedAt: new Date() })
        .where(eq(users.id, id))
        .returning();
      // A new password ends the user's sessions (their refresh tokens); access tokens run out within minutes.
      if (passwordHash) await tx.update(refreshTokens).set({ revokedAt: new Date() }).where(and(eq(refreshTokens.userId, id), isNull(refreshTokens.revokedAt)));
      return publicUser(row!);
    }),
  );
}

export async function deleteUser(db: Db, id: string) {
  await db.transaction(async (tx) => {
    const target = await getUser(tx, id);
    if (!target) throw notFound('user');
    await guardLastAdmin(tx, target, true);
    await tx.delete(users).where(eq(users.id, id));
  });
}

/**
 * The user behind an OIDC identity, provisioned on first sight with the default role, or admin when
 * one of their groups is an admin group. Later role changes are made in Core and kept.
 */
export async function provisionOidcUser(
  db: Db,
  identity: { issuer: string; subject: string; email: string | null; name: string | null; groups: string[] },
  policy: { defaultRole: Role; adminGroups: string[] },
): Promise<UserRow> {
  const where = and(eq(users.oidcIssuer, identity.issuer), eq(users.oidcSubject, identity.subject));
  const [existing] = await db.select().from(users).where(where);
  if (existing) return existing;
  const role: Role = identity.groups.some((g) => policy.adminGroups.includes(g)) ? 'admin' : policy.defaultRole;
  await db
    .insert(users)
    .values({
      kind: 'oidc',
      email: identity.email ?? identity.subject,
      name: identity.name ?? '',
      role,
      oidcIssuer: identity.issuer,
      oidcSubject: identity.subject,
    })
    .onConflictDoNothing();
  const [row] = await db.select().from(users).where(where);
  if (!row) throw new Error('OIDC user missing after insert');
  return row;
}

export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
