/**
 * Writes the demo catalog (demo-catalog.ts; its data validated by server/api/demoCatalog.ts): its categories and
 * templates, each template's documentation generated. Idempotent: existing category and template slugs are left alone.
 */
import { sql } from 'drizzle-orm';
import { categories, templates } from '../../db/schema';
import { documentationOf, type DemoCatalog } from './demo-catalog';
import { catalogWrite } from './writes';

/** The values the seed writes for every demo template (tests compare them with their references). */
export function demoTemplateRows(catalog: DemoCatalog, idOfCategory: (slug: string) => string) {
  return catalog.templates.map((t) => ({
    ...t.values,
    categoryId: idOfCategory(t.category),
    documentation: documentationOf(t),
  }));
}

export async function seedCatalog(catalog: DemoCatalog) {
  return catalogWrite(async ({ tx, at }) => {
    await tx
      .insert(categories)
      .values(catalog.categories.map((c) => ({ ...c, updatedAt: at })))
      .onConflictDoNothing({ target: categories.slug });
    const rows = await tx.select({ id: categories.id, slug: categories.slug }).from(categories);
    const idOf = new Map(rows.map((r) => [r.slug, r.id]));
    const inserted = await tx
      .insert(templates)
      .values(demoTemplateRows(catalog, (slug) => idOf.get(slug)!).map((t) => ({ ...t, updatedAt: at, createdAt: at })))
      .onConflictDoNothing({ target: templates.slug })
      .returning({ id: templates.id });
    const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(templates);
    return { categories: catalog.categories.length, templatesInserted: inserted.length, templatesTotal: count?.n ?? 0 };
  });
}
