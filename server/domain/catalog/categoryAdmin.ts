/**
 * Category administration. Writes run in catalogWrite; a category turning private records sync exits
 * for its templates first; a change of what templates show about their category (name, slug, icon) or
 * a category opening up bumps its templates so that incremental sync delivers them.
 */
import { ServiceError } from '../errors';
import { and, asc, eq, getTableColumns, max, ne, sql } from 'drizzle-orm';
import { getDb, type Tx } from '../../db/client';
import { accessGrants, categories, categoryTemplateCounts, templates } from '../../db/schema';
import { writeAudit, type AuditActor } from '../audit';
import { isForeignKeyViolation, isUniqueViolation } from '../dbErrors';
import { bumpTemplates, catalogWrite, recordExits } from './writes';

export type CategoryValues = Partial<
  Pick<typeof categories.$inferInsert, 'name' | 'slug' | 'description' | 'icon' | 'sortOrder' | 'isPrivate'>
>;

// eq() qualifies the columns; bare ${column} inside a sql subquery renders unqualified and binds to the inner table.
const templateCount = sql<number>`(select coalesce(sum(${categoryTemplateCounts.n}), 0)::int from ${categoryTemplateCounts}
  where ${eq(categoryTemplateCounts.categoryId, categories.id)})`;
const accessCount = sql<number>`(select count(*)::int from ${accessGrants} where ${eq(accessGrants.categoryId, categories.id)})`;
const adminCategorySelection = { ...getTableColumns(categories), templateCount, accessCount };

export async function listAdminCategories() {
  const db = await getDb();
  return db
    .select(adminCategorySelection)
    .from(categories)
    .orderBy(asc(categories.sortOrder), asc(categories.name), asc(categories.id));
}

async function getAdminCategory(tx: Tx, id: string) {
  const [row] = await tx.select(adminCategorySelection).from(categories).where(eq(categories.id, id));
  return row!;
}

function slugTaken(slug: string): never {
  throw new ServiceError('conflict', `slug: a category with slug "${slug}" already exists`);
}

async function checkSlugFree(tx: Tx, slug: string, exceptId?: string) {
  const [taken] = await tx
    .select({ id: categories.id })
    .from(categories)
    .where(exceptId ? and(eq(categories.slug, slug), ne(categories.id, exceptId)) : eq(categories.slug, slug));
  if (taken) slugTaken(slug);
}

async function guardedSlug<T>(slug: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err) && slug) slugTaken(slug);
    throw err;
  }
}

/** Where a new category without a sort order goes: after every existing one (10 past the largest; 0 for the first). */
const SORT_STEP = 10;
const SORT_MAX = 1_000_000;
async function lastSortOrder(tx: Tx) {
  const [row] = await tx.select({ top: max(categories.sortOrder) }).from(categories);
  return row?.top === null || row?.top === undefined ? 0 : Math.min(row.top + SORT_STEP, SORT_MAX);
}

export async function createCategory(actor: AuditActor, values: CategoryValues & { name: string; slug: string }) {
  return guardedSlug(values.slug, () =>
    catalogWrite(async ({ tx, at }) => {
      await checkSlugFree(tx, values.slug);
      const sortOrder = values.sortOrder ?? (await lastSortOrder(tx));
      const [row] = await tx
        .insert(categories)
        .values({ ...values, sortOrder, createdAt: at, updatedAt: at })
        .returning({ id: categories.id });
      await writeAudit(tx, {
        actor,
        action: 'category.create',
        targetType: 'category',
        targetId: row!.id,
        details: { slug: values.slug, name: values.name, is_private: values.isPrivate ?? false },
      });
      return getAdminCategory(tx, row!.id);
    }),
  );
}

async function lockCategory(tx: Tx, id: string) {
  const [before] = await tx.select().from(categories).where(eq(categories.id, id)).for('update');
  if (!before) throw new ServiceError('not_found', 'id: no such category');
  return before;
}

export async function updateCategory(actor: AuditActor, id: string, values: CategoryValues) {
  return guardedSlug(values.slug, () =>
    catalogWrite(async (change) => {
      const { tx, at } = change;
      const before = await lockCategory(tx, id);
      if (values.slug !== undefined && values.slug !== before.slug) await checkSlugFree(tx, values.slug, id);
      const inCategory = sql`t.category_id = ${id}`;
      // Either direction may hide templates: made private, everyone loses the public ones; made public,
      // grant holders lose the non-public ones they saw through their grant.
      if (values.isPrivate !== undefined && values.isPrivate !== before.isPrivate)
        await recordExits(change, inCategory);
      await tx
        .update(categories)
        .set({ ...values, updatedAt: at })
        .where(eq(categories.id, id));
      const shownOnTemplates =
        (values.name !== undefined && values.name !== before.name) ||
        (values.slug !== undefined && values.slug !== before.slug) ||
        (values.icon !== undefined && values.icon !== before.icon) ||
        (values.isPrivate !== undefined && values.isPrivate !== before.isPrivate);
      if (shownOnTemplates) await bumpTemplates(change, inCategory);
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const [k, v] of Object.entries(values)) {
        const old = before[k as keyof typeof before];
        if (v !== undefined && v !== old) changes[k] = { from: old, to: v };
      }
      await writeAudit(tx, {
        actor,
        action: 'category.update',
        targetType: 'category',
        targetId: id,
        details: { slug: before.slug, changes },
      });
      return getAdminCategory(tx, id);
    }),
  );
}

/** 409 while any template references the category; its access grants go with it. */
export async function deleteCategory(actor: AuditActor, id: string) {
  try {
    return await catalogWrite(async ({ tx }) => {
      const before = await lockCategory(tx, id);
      const [used] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(templates)
        .where(eq(templates.categoryId, id));
      const n = Number(used?.n ?? 0);
      if (n > 0) {
        throw new ServiceError(
          'conflict',
          `Category "${before.slug}" is used by ${n} template${n === 1 ? '' : 's'}; move or delete ${n === 1 ? 'it' : 'them'} first`,
        );
      }
      const grants = await tx
        .delete(accessGrants)
        .where(eq(accessGrants.categoryId, id))
        .returning({ orgId: accessGrants.orgId });
      await tx.delete(categories).where(eq(categories.id, id));
      await writeAudit(tx, {
        actor,
        action: 'category.delete',
        targetType: 'category',
        targetId: id,
        details: { slug: before.slug, name: before.name, grants_removed: grants.length },
      });
      return before;
    });
  } catch (err) {
    // A template created in the category meanwhile (restrict foreign key).
    if (isForeignKeyViolation(err))
      throw new ServiceError('conflict', 'Category is used by templates; move or delete them first');
    throw err;
  }
}
