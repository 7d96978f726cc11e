/** A substring search's match count per rank tier, kept per scope and filter until the next catalog write. */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client';
import { generation } from '../../db/invalidation';
import type { CatalogScope } from '../principal';
import type { TemplateFilters } from './filters';
import { listTemplatesQueries } from './listQuery';
import { searchStats, type TierCounts } from './search';

/**
 * A substring search's match count per tier (searchTiers), per scope and filter: counting every match is
 * what a common term costs (a trigram bitmap over a tenth of the catalog), so it is done once and kept until
 * the next catalog write (the generation also moves when another process writes), for at most a minute.
 */
// The TTL bounds what a change made outside catalogWrite (plain SQL, no announcement) can leave stale, as the response cache's does.
const tierCountCache = new LRUCache<string, { generation: number; counts: Promise<TierCounts> }>({
  max: 10_000,
  ttl: 60_000,
});

export function searchTierCounts(db: Db, scope: CatalogScope, filters: TemplateFilters): Promise<TierCounts> {
  const cacheKey = JSON.stringify([
    scope.kind === 'org' ? scope.orgId : scope.kind,
    filters.search,
    filters.category ?? '',
    filters.featured ? 1 : 0,
    filters.tags ?? [],
  ]);
  const current = generation('catalog');
  const cached = tierCountCache.get(cacheKey);
  if (cached && cached.generation === current) return cached.counts;
  searchStats.tierCounts++;
  const first = { page: 1, limit: 1 };
  const counts = Promise.all([
    listTemplatesQueries(db, scope, filters, first).count,
    // The scope's entries under the category and featured filters: the maintained counters.
    listTemplatesQueries(db, scope, { category: filters.category, featured: filters.featured }, first).count,
  ]).then(([rows, [all]]) => {
    const tiers = [0, 0, 0, 0];
    for (const { tier, n } of rows) tiers[Number(tier)] = Number(n);
    return { tiers, visible: Number(all?.n ?? 0) };
  });
  tierCountCache.set(cacheKey, { generation: current, counts });
  counts.catch(() => tierCountCache.delete(cacheKey));
  return counts;
}
