/**
 * The one visibility rule of the catalog, as SQL over a row that has a category, an owner and a public
 * flag: a template (`templates`), its read-model entry (`catalog_entries`) or a count bucket
 * (`category_template_counts`). List, get, updates, categories and their counts all filter through it.
 *
 *   admin      everything
 *   org X      templates X owns, public templates in non-private categories, and every template
 *              in a private category X holds an access grant for
 *   anonymous  public templates in non-private categories
 *
 * The category side is written as membership in two small arrays (open categories, categories granted to
 * X) that PostgreSQL computes once per query, so the rule reads only the row's own columns: no join per
 * row, and an index that carries those columns answers it alone.
 */
import { and, eq, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { accessGrants, categories, templates } from '../../db/schema';
import type { CatalogScope } from '../principal';

/** A scope, or the org scope of a prepared statement whose organization is a placeholder. */
export type VisibilityScope = CatalogScope | { kind: 'org'; orgId: Placeholder<'orgId', string> };

/** The columns the rule reads. */
export interface VisibilityColumns {
  categoryId: AnyPgColumn;
  orgId: AnyPgColumn;
  isPublic: AnyPgColumn;
}

function hasGrant(orgId: string | Placeholder): SQL {
  return sql`exists (select 1 from ${accessGrants} where ${accessGrants.orgId} = ${orgId} and ${accessGrants.categoryId} = ${categories.id})`;
}

const openCategories = sql`array(select c_open.id from categories c_open where not c_open.is_private)`;

function grantedCategories(orgId: string | Placeholder): SQL {
  return sql`array(select g.category_id from access_grants g join categories c_granted on c_granted.id = g.category_id
                    where g.org_id = ${orgId} and c_granted.is_private)`;
}

export function templateVisible(scope: VisibilityScope, t: VisibilityColumns = templates): SQL {
  const isPublic = and(eq(t.isPublic, true), sql`${t.categoryId} = any(${openCategories})`)!;
  switch (scope.kind) {
    case 'admin':
      return sql`true`;
    case 'org':
      return sql`(${or(eq(t.orgId, scope.orgId), isPublic, sql`${t.categoryId} = any(${grantedCategories(scope.orgId)})`)})`;
    case 'anonymous':
      return isPublic;
  }
}

export function categoryVisible(scope: CatalogScope): SQL {
  switch (scope.kind) {
    case 'admin':
      return sql`true`;
    case 'org':
      return or(eq(categories.isPrivate, false), hasGrant(scope.orgId))!;
    case 'anonymous':
      return eq(categories.isPrivate, false);
  }
}
