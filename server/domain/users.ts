/** Users: creation by operators (CLI) and by sign-in. */
import { sql } from 'drizzle-orm';
import { getDb } from '../db/client';
import { users } from '../db/schema';
import type { PlatformRole } from './principal';

export function normalizeEmail(email: string) {
  return email.trim().toLowerCase();
}

/** Creates the user, or updates name and role of the existing one with that email. */
export async function upsertUserByEmail(input: { email: string; name?: string; role?: PlatformRole }) {
  const db = await getDb();
  const email = normalizeEmail(input.email);
  const [user] = await db
    .insert(users)
    .values({ email, name: input.name ?? '', role: input.role ?? 'user' })
    .onConflictDoUpdate({
      target: users.email,
      set: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.role !== undefined ? { role: input.role } : {}),
        updatedAt: sql`now()`,
      },
    })
    .returning();
  return user!;
}

/**
 * Whether a superadmin exists. With the development provider the first person to sign in is promoted only
 * while none does (identity.ts); the sign-in page says which case applies (the demo seeds one).
 */
export async function superadminExists(): Promise<boolean> {
  const db = await getDb();
  const rows = await db.execute(sql`select 1 from users where role = 'superadmin' limit 1`);
  return (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows).length > 0;
}
