/** One template by its slug, as a scope sees it. */
import { and, eq, sql, type Placeholder } from 'drizzle-orm';
import { readCatalog, type Db, type ReadSource } from '../../db/client';
import { categories, templates } from '../../db/schema';
import type { CatalogScope } from '../principal';
import { templateSelection, type TemplateRow } from './templateRow';
import { templateVisible, type VisibilityScope } from './visibility';

/**
 * Get-by-slug is the one catalog read that misses the response cache often (one entry per template and
 * caller scope), so it runs as a prepared statement per scope kind: planned once per connection.
 */
export function templateBySlugQuery(db: Db, scope: VisibilityScope, slug: string | Placeholder) {
  return db
    .select(templateSelection)
    .from(templates)
    .innerJoin(categories, eq(categories.id, templates.categoryId))
    .where(and(eq(templates.slug, slug), templateVisible(scope)));
}

function prepareBySlug(db: Db, kind: CatalogScope['kind']) {
  const scope: VisibilityScope = kind === 'org' ? { kind, orgId: sql.placeholder('orgId') } : { kind };
  return templateBySlugQuery(db, scope, sql.placeholder('slug')).prepare(`template_by_slug_${kind}`);
}
const bySlugStatements = new WeakMap<Db, Record<CatalogScope['kind'], ReturnType<typeof prepareBySlug>>>();

export async function findTemplateBySlug(
  scope: CatalogScope,
  slug: string,
  source: ReadSource = 'primary',
): Promise<TemplateRow | null> {
  return readCatalog(source, async (db) => {
    let statements = bySlugStatements.get(db);
    if (!statements) {
      statements = {
        admin: prepareBySlug(db, 'admin'),
        org: prepareBySlug(db, 'org'),
        anonymous: prepareBySlug(db, 'anonymous'),
      };
      bySlugStatements.set(db, statements);
    }
    const [row] = await statements[scope.kind].execute({ slug, orgId: scope.kind === 'org' ? scope.orgId : undefined });
    return row ?? null;
  });
}
