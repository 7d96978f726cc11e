/** The categories a scope sees, with how many of their templates it sees. */
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { readCatalog, type Db, type ReadSource } from '../../db/client';
import { categories, categoryTemplateCounts } from '../../db/schema';
import type { CatalogScope } from '../principal';
import { categoryVisible, templateVisible } from './visibility';

/** The categories a scope sees with its template counts, unexecuted (the benchmark EXPLAINs it). */
export function listCategoriesQuery(db: Db, scope: CatalogScope) {
  // A sum over the category's few count buckets (maintained by triggers): never a scan of the catalog.
  // Conditions through drizzle operators: they qualify column names (a bare column in a sql`` fragment
  // of a single-table select is rendered unqualified, which would bind to the subquery's table).
  const counts = categoryTemplateCounts;
  const visibleCount = sql<number>`(
    select coalesce(sum(${counts.n}), 0)::int from ${counts}
     where ${and(eq(counts.categoryId, categories.id), templateVisible(scope, counts))})`;
  return db
    .select({ ...getTableColumns(categories), templateCount: visibleCount })
    .from(categories)
    .where(categoryVisible(scope))
    .orderBy(asc(categories.sortOrder), asc(categories.name), asc(categories.id));
}

export async function listCategories(scope: CatalogScope, source: ReadSource = 'primary') {
  return readCatalog(source, (db) => listCategoriesQuery(db, scope));
}
