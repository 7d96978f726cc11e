/**
 * The catalog list (and the admin's): a page of templates and the total, by the cheapest way the filters allow
 * (maintained counts, checkpoints, kept tier counts), falling back to similar names when no substring matches.
 */
import { readCatalog, type Db, type ReadSource } from '../../db/client';
import type { Page } from '../paginate';
import type { CatalogScope } from '../principal';
import { CHECKPOINT_EVERY, checkpointBefore, checkpointStats } from './checkpoints';
import { countedByCategory, type SearchMatch, type TemplateFilters } from './filters';
import { listTemplatesQueries } from './listQuery';
import { searchPass, searchTierCounts, searchTierCountsKept } from './tierCounts';
import type { TemplateRow } from './templateRow';

async function listMatching(db: Db, scope: CatalogScope, filters: TemplateFilters, page: Page, match: SearchMatch) {
  const total = async (query: Promise<{ n: number }[]>) => Number((await query)[0]?.n ?? 0);
  const pageOf = (rows: (ListedRow & { matches: number | null })[]) => rows.map(({ matches: _, ...row }) => row);
  if (countedByCategory(filters)) {
    const { list, count: countQuery } = listTemplatesQueries(db, scope, filters, page, { match });
    if (page.page === 1) {
      // A first page that is not full is everything: no count needed.
      const rows = pageOf(await list);
      return { rows, total: rows.length < page.limit ? rows.length : await total(countQuery) };
    }
    // The total costs a few summed counters; a deep page starts from the nearest checkpoint before it.
    const offset = (page.page - 1) * page.limit;
    const [known, after] = await Promise.all([
      total(countQuery),
      offset >= CHECKPOINT_EVERY ? checkpointBefore(db, scope, filters, offset) : undefined,
    ]);
    if (offset >= known) return { rows: [], total: known };
    if (after) {
      checkpointStats.pagesFromCheckpoint++;
      checkpointStats.lastSkipped = offset - (after.position + 1);
    }
    return { rows: pageOf(await listTemplatesQueries(db, scope, filters, page, { match, after }).list), total: known };
  }
  if (filters.search && match === 'substring') {
    if (!searchTierCountsKept(filters)) {
      // The term's first ask in this catalog generation: its matches counted and its page chosen in one pass.
      const { ids, total: known } = await searchPass(db, scope, filters, page.limit, (page.page - 1) * page.limit);
      if (ids.length === 0) return { rows: [], total: known };
      return { rows: pageOf(await listTemplatesQueries(db, scope, filters, page, { ids }).list), total: known };
    }
    // The kept count per rank tier is the total, and says which tiers the page reads.
    const tierCounts = await searchTierCounts(db, scope, filters);
    const known = tierCounts.tiers.reduce((sum, n) => sum + n, 0);
    if ((page.page - 1) * page.limit >= known) return { rows: [], total: known };
    return { rows: pageOf(await listTemplatesQueries(db, scope, filters, page, { tierCounts }).list), total: known };
  }
  const { list, count: countQuery } = listTemplatesQueries(db, scope, filters, page, { match });
  if (!filters.search) {
    const [rows, n] = await Promise.all([list, page.page === 1 ? null : total(countQuery)]);
    return { rows: pageOf(rows), total: n ?? (rows.length < page.limit ? rows.length : await total(countQuery)) };
  }
  // Similar names: the matches' count comes with the page.
  const rows = await list;
  if (rows.length > 0) return { rows: pageOf(rows), total: Number(rows[0]!.matches) };
  // Past the end (or nothing matches): the count alone.
  return { rows: [], total: page.page === 1 ? 0 : await total(countQuery) };
}

/** A listed template and whether it has registry credentials (what the admin list adds). */
export type ListedRow = TemplateRow & { hasRegistryCredentials: boolean };

async function listRows(
  scope: CatalogScope,
  filters: TemplateFilters,
  page: Page,
  source: ReadSource = 'primary',
): Promise<{ rows: ListedRow[]; total: number }> {
  return readCatalog(source, async (db) => {
    const found = await listMatching(db, scope, filters, page, 'substring');
    if (found.total > 0 || !filters.search) return found;
    return listMatching(db, scope, filters, page, 'similar');
  });
}

/** `source`: 'replica' lets the read run on a caught-up replica (anonymous and instance-key callers). */
export async function listTemplates(
  scope: CatalogScope,
  filters: TemplateFilters,
  page: Page,
  source: ReadSource = 'primary',
): Promise<{ rows: TemplateRow[]; total: number }> {
  const { rows, total } = await listRows(scope, filters, page, source);
  return { rows: rows.map(({ hasRegistryCredentials: _, ...row }) => row), total };
}

/** The admin list: every template, with whether it has registry credentials (the same single query). */
export async function listTemplatesForAdmin(
  filters: TemplateFilters,
  page: Page,
): Promise<{ rows: ListedRow[]; total: number }> {
  const { rows, total } = await listRows({ kind: 'admin' }, filters, page);
  return { rows: rows.map((row) => ({ ...row, hasRegistryCredentials: Boolean(row.hasRegistryCredentials) })), total };
}
