/**
 * System-wide counts for the admin dashboard. Templates are summed from category_template_counts (kept exact by
 * a trigger) rather than counted: the template table is the large one.
 */
import { count, eq, sql } from 'drizzle-orm';
import { getDb } from '../db/client';
import { categories, categoryTemplateCounts, instanceKeys, organizations, users } from '../db/schema';

export async function platformStats() {
  const db = await getDb();
  const [[u], [o], [k], [t], [c]] = await Promise.all([
    db.select({ n: count() }).from(users),
    db.select({ n: count() }).from(organizations),
    db.select({ n: count() }).from(instanceKeys).where(eq(instanceKeys.status, 'active')),
    db.select({ n: sql<number>`coalesce(sum(${categoryTemplateCounts.n}), 0)::int` }).from(categoryTemplateCounts),
    db.select({ n: count() }).from(categories),
  ]);
  return {
    users: u?.n ?? 0,
    organizations: o?.n ?? 0,
    apiKeys: k?.n ?? 0,
    templates: t?.n ?? 0,
    categories: c?.n ?? 0,
  };
}
