/** System-wide counts for the admin dashboard. */
import { count, eq } from 'drizzle-orm';
import { getDb } from '../db/client';
import { categories, instanceKeys, organizations, templates, users } from '../db/schema';

export async function platformStats() {
  const db = await getDb();
  const [[u], [o], [k], [t], [c]] = await Promise.all([
    db.select({ n: count() }).from(users),
    db.select({ n: count() }).from(organizations),
    db.select({ n: count() }).from(instanceKeys).where(eq(instanceKeys.status, 'active')),
    db.select({ n: count() }).from(templates),
    db.select({ n: count() }).from(categories),
  ]);
  return { users: u?.n ?? 0, organizations: o?.n ?? 0, apiKeys: k?.n ?? 0, templates: t?.n ?? 0, categories: c?.n ?? 0 };
}
