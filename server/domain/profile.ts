/** The signed-in user's own profile. */
import { DomainError } from './errors';
import { eq, sql } from 'drizzle-orm';
import { getDb } from '../db/client';
import { users } from '../db/schema';
import { writeAudit } from './audit';
import type { UserPrincipal } from './principal';

export async function updateProfileName(user: UserPrincipal, name: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx.update(users).set({ name, updatedAt: sql`now()` }).where(eq(users.id, user.userId)).returning();
    if (!row) throw new DomainError('unauthenticated', 'This user no longer exists');
    await writeAudit(tx, { actor: user, action: 'user.update_profile', targetType: 'user', targetId: row.id, orgId: row.orgId, details: { name: { from: user.name, to: name } } });
    return row;
  });
}
