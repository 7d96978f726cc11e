/** The signed-in user's own profile. */
import { ServiceError } from './errors';
import { eq, sql } from 'drizzle-orm';
import { announceChange } from '../db/invalidation';
import { getDb } from '../db/client';
import { users } from '../db/schema';
import { writeAudit } from './audit';
import type { UserPrincipal } from './principal';

export async function updateProfileName(user: UserPrincipal, name: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(users)
      .set({ name, updatedAt: sql`now()` })
      .where(eq(users.id, user.userId))
      .returning();
    if (!row) throw new ServiceError('unauthenticated', 'This user no longer exists');
    await writeAudit(tx, {
      actor: user,
      action: 'user.update_profile',
      targetType: 'user',
      targetId: row.id,
      orgId: row.orgId,
      details: { name: { from: user.name, to: name } },
    });
    return row;
  });
}

/**
 * Ends every session and Hub JWT of the user issued until now (sign-out, "sign out everywhere"):
 * the resolver refuses a token whose iat is before sessions_valid_after.
 */
export async function endSessions(userId: string): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(users)
      .set({ sessionsValidAfter: sql`now()` })
      .where(eq(users.id, userId))
      .returning({ orgId: users.orgId });
    // Personal access tokens minted with the user's script tokens end too: their cached look-ups die now.
    await announceChange(tx, 'auth');
    if (row)
      await writeAudit(tx, {
        actor: { kind: 'system', id: 'sign-out' },
        action: 'user.end_sessions',
        targetType: 'user',
        targetId: userId,
        orgId: row.orgId,
        details: {},
      });
  });
}

/** Whether a Hub JWT issued at `iatSeconds` predates the user's last sign-out. */
export function issuedBeforeSignOut(iatSeconds: number | undefined, validAfter: Date | null): boolean {
  return validAfter !== null && (iatSeconds ?? 0) * 1000 < validAfter.getTime();
}

/** Whether the user's Hub JWT issued at `iatSeconds` has been signed out (or the user is gone). */
export async function sessionSignedOut(userId: string, iatSeconds: number | undefined): Promise<boolean> {
  const db = await getDb();
  const [row] = await db.select({ validAfter: users.sessionsValidAfter }).from(users).where(eq(users.id, userId));
  return !row || issuedBeforeSignOut(iatSeconds, row.validAfter);
}
