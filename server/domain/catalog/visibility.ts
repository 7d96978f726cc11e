/**
 * The one visibility rule of the catalog, as SQL over `templates` joined with `categories`.
 * List, get, updates, categories and their counts all filter through these two functions.
 *
 *   admin      everything
 *   org X      templates X owns, public templates in non-private categories, and every template
 *              in a private category X holds an access grant for
 *   anonymous  public templates in non-private categories
 */
import { and, eq, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { accessGrants, categories, templates } from '../../db/schema';
import type { CatalogScope } from '../principal';

/** A scope, or the org scope of a prepared statement whose organization is a placeholder. */
export type VisibilityScope = CatalogScope | { kind: 'org'; orgId: Placeholder<'orgId', string> };

function hasGrant(orgId: string | Placeholder): SQL {
  return sql`exists (select 1 from ${accessGrants} where ${accessGrants.orgId} = ${orgId} and ${accessGrants.categoryId} = ${categories.id})`;
}

const publicTemplate = and(eq(templates.isPublic, true), eq(categories.isPrivate, false))!;

export function templateVisible(scope: VisibilityScope): SQL {
  switch (scope.kind) {
    case 'admin':
      return sql`true`;
    case 'org':
      return or(eq(templates.orgId, scope.orgId), publicTemplate, and(eq(categories.isPrivate, true), hasGrant(scope.orgId)))!;
    case 'anonymous':
      return publicTemplate;
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
