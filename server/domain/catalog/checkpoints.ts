/** Deep pages of the catalog order: the kept keys of every CHECKPOINT_EVERY-th entry, where a deep page starts. */
import { and, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client';
import { generation } from '../../db/invalidation';
import { catalogEntries } from '../../db/schema';
import type { CatalogScope } from '../principal';
import { templateFilterSql, type TemplateFilters } from './filters';
import type { OrderKey } from './listQuery';
import { templateVisible } from './visibility';

const entries = catalogEntries;

/**
 * Checkpoints of the catalog order per scope and filter: the key of every CHECKPOINT_EVERY-th entry,
 * read in one index-only pass on the first deep page and kept until the next catalog write (the
 * generation also moves when another process writes), for at most a minute. A deep page then skips at most that many entries.
 */
export const CHECKPOINT_EVERY = 1000;
// The TTL bounds what a change made outside catalogWrite (plain SQL, no announcement) can leave stale, as the response cache's does.
const checkpoints = new LRUCache<string, { generation: number; keys: Promise<OrderKey[]> }>({ max: 500, ttl: 60_000 });

/** What the checkpoints did in this process (tests assert deep pages use them; cheap enough to keep). */
export const checkpointStats = {
  /** Passes that read the checkpoints of a scope and filter. */
  reads: 0,
  /** Pages that started at a checkpoint instead of the start of the list. */
  pagesFromCheckpoint: 0,
  /** The entries the last such page skipped after its checkpoint (always < CHECKPOINT_EVERY). */
  lastSkipped: 0,
};

/** The keys of every CHECKPOINT_EVERY-th entry in catalog order, unexecuted (the benchmark EXPLAINs it). */
export function checkpointQuery(db: Db, scope: CatalogScope, filters: TemplateFilters) {
  const position =
    sql<number>`row_number() over (order by ${entries.featuredRank}, ${entries.name}, ${entries.templateId})`.as(
      'position',
    );
  const ordered = db
    .select({ featuredRank: entries.featuredRank, name: entries.name, id: entries.templateId, position })
    .from(entries)
    .where(and(templateVisible(scope, entries), ...templateFilterSql(filters)))
    .as('ordered');
  return db
    .select({ featuredRank: ordered.featuredRank, name: ordered.name, id: ordered.id })
    .from(ordered)
    .where(sql`${ordered.position} % ${CHECKPOINT_EVERY} = 0`)
    .orderBy(ordered.position);
}

function checkpointKeys(db: Db, scope: CatalogScope, filters: TemplateFilters): Promise<OrderKey[]> {
  const cacheKey = `${scope.kind === 'org' ? scope.orgId : scope.kind}\n${filters.category ?? ''}\n${filters.featured ? 1 : 0}`;
  const current = generation('catalog');
  const cached = checkpoints.get(cacheKey);
  if (cached && cached.generation === current) return cached.keys;
  checkpointStats.reads++;
  const keys = checkpointQuery(db, scope, filters).then((rows) => rows);
  checkpoints.set(cacheKey, { generation: current, keys });
  keys.catch(() => checkpoints.delete(cacheKey));
  return keys;
}

/** The last checkpoint before 0-based `offset`, if any. */
export async function checkpointBefore(db: Db, scope: CatalogScope, filters: TemplateFilters, offset: number) {
  const keys = await checkpointKeys(db, scope, filters);
  const index = Math.min(Math.floor(offset / CHECKPOINT_EVERY), keys.length) - 1;
  return index >= 0 ? { key: keys[index]!, position: (index + 1) * CHECKPOINT_EVERY - 1 } : undefined;
}
