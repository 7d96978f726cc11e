/**
 * EXPLAIN (ANALYZE, BUFFERS) of the catalog's search, tags and updates queries, built with the Hub's own
 * query pieces (templateVisible, templateFilterSql, templateSelection) so that the plans are those of the
 * SQL the Hub sends. If those pieces change shape, the same SQL written out here is explained instead
 * and the report says so. When the planner prefers another plan (e.g. a sequential scan of a small table),
 * the query is explained again with enable_seqscan off to show the index is usable.
 */
import { and, asc, eq, gte, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Sql } from 'postgres';

export interface ExplainCase {
  id: string;
  title: string;
  /** Index names that show the query is served by the intended index. */
  indexes: string[];
}

export interface ExplainResult extends ExplainCase {
  source: 'hub query builder' | 'bench copy of the SQL';
  plan: string;
  usesIndex: boolean;
  indexesSeen: string[];
  executionMs: number | null;
  /** When the natural plan used none of the indexes: the plan with enable_seqscan off. */
  forcedPlan?: string;
  forcedUsesIndex?: boolean;
}

interface Inputs {
  orgId: string;
  brand: string;
  tags: string[];
  search: string;
  since: Date;
}

export const CASES = (i: Inputs): (ExplainCase & { filters: { search?: string; tags?: string[] }; kind: 'list' | 'count' | 'updates' })[] => [
  { id: 'plain-list', title: 'list, no filter (first page in catalog order)', indexes: ['templates_list_order_idx'], filters: {}, kind: 'list' },
  { id: 'search-list', title: `list, search="${i.brand}" (one match)`, indexes: ['templates_name_trgm_idx', 'templates_description_trgm_idx'], filters: { search: i.brand }, kind: 'list' },
  { id: 'search-count', title: `count for pagination, search="${i.brand}"`, indexes: ['templates_name_trgm_idx', 'templates_description_trgm_idx'], filters: { search: i.brand }, kind: 'count' },
  { id: 'tags-count', title: `count for pagination, tags=${i.tags.join(',')}`, indexes: ['templates_tags_idx'], filters: { tags: i.tags }, kind: 'count' },
  { id: 'tags-list', title: `list, tags=${i.tags.join(',')}`, indexes: ['templates_tags_idx', 'templates_list_order_idx'], filters: { tags: i.tags }, kind: 'list' },
  {
    id: 'scenario-search-tags',
    title: `list, search="${i.search}" and tags=gpu,llm (the load scenario)`,
    indexes: ['templates_name_trgm_idx', 'templates_description_trgm_idx', 'templates_tags_idx', 'templates_list_order_idx'],
    filters: { search: i.search, tags: ['gpu', 'llm'] },
    kind: 'list',
  },
  { id: 'updates', title: `updates since ${i.since.toISOString()}`, indexes: ['templates_updated_at_idx'], filters: {}, kind: 'updates' },
];

function summarize(c: ExplainCase, plan: string) {
  const indexesSeen = c.indexes.filter((name) => plan.includes(name));
  const ms = /Execution Time: ([\d.]+) ms/.exec(plan);
  return { indexesSeen, usesIndex: indexesSeen.length > 0, executionMs: ms ? Number(ms[1]) : null };
}

type Runner = (c: ReturnType<typeof CASES>[number], forced: boolean) => Promise<string>;

/** Runner over the Hub's own query builder (server/domain/catalog). */
async function hubRunner(inputs: Inputs): Promise<Runner> {
  const { execRows, getDb } = await import('../server/db/client');
  const { categories, templates } = await import('../server/db/schema');
  const queries = (await import('../server/domain/catalog/queries')) as Record<string, unknown>;
  const visibility = (await import('../server/domain/catalog/visibility')) as Record<string, unknown>;
  const templateVisible = visibility.templateVisible as (scope: unknown) => SQL;
  const templateFilterSql = queries.templateFilterSql as (f: unknown) => SQL[];
  const templateSelection = queries.templateSelection as Record<string, never>;
  const listTemplatesQueries = queries.listTemplatesQueries as (db: unknown, scope: unknown, f: unknown, p: unknown) => { list: SQLWrapper; count: SQLWrapper };
  if (typeof templateVisible !== 'function' || typeof templateFilterSql !== 'function' || !templateSelection || typeof listTemplatesQueries !== 'function') {
    throw new Error('the catalog query pieces are not exported as before');
  }
  const db = await getDb();
  const scope = { kind: 'org', orgId: inputs.orgId };
  return async (c, forced) => {
    // List and count: exactly the Hub's queries (first page of 50).
    const page = listTemplatesQueries(db, scope, c.filters, { page: 1, limit: 50 });
    const query =
      c.kind === 'count'
        ? page.count
        : c.kind === 'list'
          ? page.list
          : db
              .select(templateSelection)
              .from(templates)
              .innerJoin(categories, eq(categories.id, templates.categoryId))
              .where(and(templateVisible(scope), gte(templates.updatedAt, inputs.since)))
              .orderBy(asc(templates.updatedAt), asc(templates.id));
    const explain = sql`explain (analyze, buffers, format text) ${query}`;
    const rows = forced
      ? await db.transaction(async (tx) => {
          await tx.execute(sql`set local enable_seqscan = off`);
          return execRows<Record<string, string>>(tx, explain);
        })
      : await execRows<Record<string, string>>(db, explain);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  };
}

/** The same SQL written out (used only when the Hub's pieces cannot be imported). */
function benchRunner(pg: Sql, inputs: Inputs): Runner {
  return async (c, forced) => {
    const visible = pg`(t.org_id = ${inputs.orgId} or (t.is_public = true and c.is_private = false)
      or (c.is_private = true and exists (select 1 from access_grants g where g.org_id = ${inputs.orgId} and g.category_id = c.id)))`;
    const conditions = [visible];
    if (c.filters.search) {
      const pattern = `%${c.filters.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      conditions.push(pg`(t.name ilike ${pattern} or t.description ilike ${pattern})`);
    }
    if (c.filters.tags) conditions.push(pg`t.tags && ${c.filters.tags}::text[]`);
    if (c.kind === 'updates') conditions.push(pg`t.updated_at >= ${inputs.since}`);
    const where = conditions.reduce((a, b) => pg`${a} and ${b}`);
    const body =
      c.kind === 'count'
        ? pg`select count(*) from templates t join categories c on c.id = t.category_id where ${where}`
        : c.kind === 'list'
          ? pg`select t.*, c.name, c.slug, c.icon from templates t join categories c on c.id = t.category_id where ${where}
               order by t.is_featured desc, t.name, t.id limit 50`
          : pg`select t.*, c.name, c.slug, c.icon from templates t join categories c on c.id = t.category_id where ${where}
               order by t.updated_at, t.id`;
    const rows = await pg.begin(async (tx) => {
      if (forced) await tx`set local enable_seqscan = off`;
      return tx<Record<string, string>[]>`explain (analyze, buffers, format text) ${body}`;
    });
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  };
}

export async function explainAll(pg: Sql, inputs: Inputs): Promise<{ results: ExplainResult[]; note: string | null }> {
  let runner: Runner;
  let source: ExplainResult['source'] = 'hub query builder';
  let note: string | null = null;
  try {
    runner = await hubRunner(inputs);
  } catch (err) {
    runner = benchRunner(pg, inputs);
    source = 'bench copy of the SQL';
    note = `EXPLAIN used the bench's copy of the catalog SQL: ${(err as Error).message}`;
  }
  const results: ExplainResult[] = [];
  for (const c of CASES(inputs)) {
    let plan: string;
    try {
      plan = await runner(c, false);
    } catch (err) {
      if (source !== 'hub query builder') throw err;
      // The Hub's pieces changed shape in a way that fails at run time: fall back for the rest.
      runner = benchRunner(pg, inputs);
      source = 'bench copy of the SQL';
      note = `EXPLAIN used the bench's copy of the catalog SQL: ${(err as Error).message}`;
      plan = await runner(c, false);
    }
    const { id, title, indexes } = c;
    const result: ExplainResult = { id, title, indexes, source, plan, ...summarize(c, plan) };
    if (!result.usesIndex) {
      result.forcedPlan = await runner(c, true);
      result.forcedUsesIndex = summarize(c, result.forcedPlan).usesIndex;
    }
    results.push(result);
  }
  return { results, note };
}
