/** Fixtures shared by the account-* and admin-* tests: a small world with one caller of each kind. */
import { eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { getDb } from '../server/db/client';
import { auditLog, personalAccessTokens, users } from '../server/db/schema';
import { issueSecret } from '@shared/tokens';
import { api, createKey, createOrg, createUser } from './helpers';

export type CallerKind =
  'none' | 'pat' | 'instance' | 'member' | 'orgAdmin' | 'platformAdmin' | 'superadmin' | 'deletedUser';
export const CALLERS: CallerKind[] = [
  'none',
  'pat',
  'instance',
  'member',
  'orgAdmin',
  'platformAdmin',
  'superadmin',
  'deletedUser',
];

/** An organization with an admin, a member and an instance key; platform admins without organization; a deleted user's JWT. */
export async function world() {
  const orgAdmin = await createUser({ name: 'Org Admin' });
  const member = await createUser({ name: 'Org Member' });
  const org = await createOrg({ admin: orgAdmin, members: [member] });
  const key = await createKey(org.id);
  const platformAdmin = await createUser({ role: 'admin' });
  const superadmin = await createUser({ role: 'superadmin' });
  const deletedUser = await createUser();
  const db = await getDb();
  await db.delete(users).where(eq(users.id, deletedUser.id));
  const tokens: Record<CallerKind, string | null> = {
    none: null,
    pat: issueSecret('svp_').secret,
    instance: key.secret,
    member: member.token,
    orgAdmin: orgAdmin.token,
    platformAdmin: platformAdmin.token,
    superadmin: superadmin.token,
    deletedUser: deletedUser.token,
  };
  return { org, orgAdmin, member, key, platformAdmin, superadmin, deletedUser, tokens };
}
export type World = Awaited<ReturnType<typeof world>>;

/** A personal access token row for `user` (the minting API belongs to another issue; the table is enough here). */
export async function insertPat(user: { id: string }, orgId: string, instanceKeyId: string) {
  const db = await getDb();
  const issued = issueSecret('svp_');
  const [row] = await db
    .insert(personalAccessTokens)
    .values({
      name: 'pat',
      tokenHash: issued.hash,
      tokenPrefix: issued.displayPrefix,
      userId: user.id,
      orgId,
      instanceKeyId,
      membershipSince: sql`now()`,
    })
    .returning();
  return { ...row!, secret: issued.secret };
}

export async function auditRows() {
  const db = await getDb();
  return db.select().from(auditLog).orderBy(auditLog.id);
}

export async function countRows(table: PgTable) {
  const db = await getDb();
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(table);
  return Number(row!.n);
}

/** Slugs of the catalog templates a caller sees (first page of 100). */
export async function catalogSlugs(token: string | null) {
  const res = await api('/catalog/templates?limit=100', { token });
  if (res.status !== 200) throw new Error(`catalog ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body.templates as { slug: string }[]).map((t) => t.slug).sort();
}

export const later = () => new Promise((r) => setTimeout(r, 5));
