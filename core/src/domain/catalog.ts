/**
 * The local copy of the Hub's catalog: what Core serves to both roles, validates deployments
 * against, and what the sync writes. Every sync answer is applied in one transaction together with
 * the Hub's checked_at, so a copy is never half-updated and the watermark never runs ahead of it.
 */
import { pagination } from '@shared/ops';
import { and, asc, count, eq, ilike, inArray, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { catalogTemplates, hubConnection } from '../db/schema';
import { recordActivity, SYSTEM_ACTOR, type Actor } from './activity';
import { notFound } from './errors';
import { type Page } from './principal';

/** The Hub's Template object, as the Hub sent it. */
export type CatalogTemplate = Record<string, unknown> & {
  id: string;
  slug: string;
  name: string;
  description: string;
  version: string;
  category_slug: string;
  updated_at: string;
  env: Array<{ name: string; value: string }>;
  env_schema: Array<{ name: string; required: boolean; default_value: string; description: string }>;
};

export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
  checked_at: string;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listCatalog(db: Db, query: { search?: string; category?: string } & Page) {
  const conditions: SQL[] = [];
  if (query.search) {
    const pattern = `%${escapeLike(query.search)}%`;
    conditions.push(or(ilike(catalogTemplates.name, pattern), ilike(catalogTemplates.description, pattern))!);
  }
  if (query.category) conditions.push(eq(catalogTemplates.categorySlug, query.category));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const [rows, [total]] = await Promise.all([
    db
      .select({ data: catalogTemplates.data })
      .from(catalogTemplates)
      .where(where)
      // Case-insensitive: code-server and vLLM between Caddy and WordPress, not after them.
      .orderBy(asc(sql`lower(${catalogTemplates.name})`), asc(catalogTemplates.name), asc(catalogTemplates.id))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
    db.select({ n: count() }).from(catalogTemplates).where(where),
  ]);
  return { templates: rows.map((r) => r.data as CatalogTemplate), pagination: pagination(query, total?.n ?? 0) };
}

/** The categories of the local copy with their template counts, by name (case-insensitive). */
export async function listCategories(db: Db) {
  const name = sql<string>`coalesce(${catalogTemplates.data}->>'category_name', ${catalogTemplates.categorySlug})`;
  const rows = await db
    .select({ slug: catalogTemplates.categorySlug, name: sql<string>`min(${name})`, count: count() })
    .from(catalogTemplates)
    .groupBy(catalogTemplates.categorySlug);
  return rows.sort(
    (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.slug.localeCompare(b.slug),
  );
}

export async function findTemplate(db: Db | Tx, slug: string): Promise<CatalogTemplate | undefined> {
  const [row] = await db
    .select({ data: catalogTemplates.data })
    .from(catalogTemplates)
    .where(eq(catalogTemplates.slug, slug));
  return row?.data as CatalogTemplate | undefined;
}

export async function getTemplate(db: Db, slug: string): Promise<CatalogTemplate> {
  const template = await findTemplate(db, slug);
  if (!template)
    throw notFound(`template ${JSON.stringify(slug)} (not in this instance's catalog; it syncs from the Hub)`);
  return template;
}

export async function countTemplates(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(catalogTemplates);
  return row?.n ?? 0;
}

const CHUNK = 500;

/** Replaces (full) or amends (incremental) the copy; returns what changed. Runs inside the caller's transaction. */
async function applyChanges(tx: Tx, templates: CatalogTemplate[], removedIds: string[], full: boolean) {
  const incomingIds = templates.map((t) => t.id);
  const before = new Map<string, string>();
  for (let i = 0; i < incomingIds.length; i += CHUNK) {
    const ids = incomingIds.slice(i, i + CHUNK);
    const rows = await tx
      .select({ id: catalogTemplates.id, data: catalogTemplates.data })
      .from(catalogTemplates)
      .where(inArray(catalogTemplates.id, ids));
    for (const r of rows) before.set(r.id, JSON.stringify(r.data));
  }
  let added = 0;
  let updated = 0;
  for (const t of templates) {
    const old = before.get(t.id);
    if (old === undefined) added++;
    else if (old !== JSON.stringify(t)) updated++;
  }

  // Removals: a full sync keeps exactly what the Hub listed; an update drops what the Hub says left.
  const keep = new Set(incomingIds);
  let removed = 0;
  if (full) {
    const gone =
      incomingIds.length > 0
        ? await tx
            .delete(catalogTemplates)
            .where(notInArray(catalogTemplates.id, incomingIds))
            .returning({ id: catalogTemplates.id })
        : await tx.delete(catalogTemplates).returning({ id: catalogTemplates.id });
    removed = gone.length;
  } else {
    const dropIds = removedIds.filter((id) => !keep.has(id));
    for (let i = 0; i < dropIds.length; i += CHUNK) {
      const gone = await tx
        .delete(catalogTemplates)
        .where(inArray(catalogTemplates.id, dropIds.slice(i, i + CHUNK)))
        .returning({ id: catalogTemplates.id });
      removed += gone.length;
    }
  }

  // Delete, then insert: slugs are unique, and a batch may swap or reuse them (a template deleted at the Hub
  // and another created with its slug).
  for (let i = 0; i < templates.length; i += CHUNK) {
    const batch = templates.slice(i, i + CHUNK);
    await tx.delete(catalogTemplates).where(
      or(
        inArray(
          catalogTemplates.id,
          batch.map((t) => t.id),
        ),
        inArray(
          catalogTemplates.slug,
          batch.map((t) => t.slug),
        ),
      ),
    );
  }
  const now = new Date();
  for (let i = 0; i < templates.length; i += CHUNK) {
    await tx.insert(catalogTemplates).values(
      templates.slice(i, i + CHUNK).map((t) => ({
        id: t.id,
        slug: t.slug,
        name: t.name,
        description: t.description,
        categorySlug: t.category_slug,
        data: t,
        updatedAt: t.updated_at,
        syncedAt: now,
      })),
    );
  }
  return { added, updated, removed };
}

export class StaleConnection extends Error {}

/**
 * Applies one sync answer and records checked_at (and the ETag) in the same transaction. `generation`
 * is the connection's connected_at when the sync started: if the connection changed meanwhile (another
 * Hub or key), nothing is applied.
 */
export async function applySync(
  db: Db,
  input: {
    full: boolean;
    templates: CatalogTemplate[];
    removedIds: string[];
    checkedAt: string;
    etag: string | null;
    generation: Date;
    /** Who the sync ran for: the person or token that asked, else the sync loop (system). */
    actor?: Actor;
  },
): Promise<SyncCounts> {
  return db.transaction(async (tx) => {
    const [conn] = await tx
      .select({ connectedAt: hubConnection.connectedAt })
      .from(hubConnection)
      .where(eq(hubConnection.id, 'hub'))
      .for('update');
    if (!conn || conn.connectedAt.getTime() !== input.generation.getTime())
      throw new StaleConnection('the Hub connection changed during the sync');
    const counts = await applyChanges(tx, input.templates, input.removedIds, input.full);
    await tx
      .update(hubConnection)
      .set({ checkedAt: input.checkedAt, etag: input.etag, lastSyncAt: new Date(), lastError: null, lastErrorAt: null })
      .where(eq(hubConnection.id, 'hub'));
    // What changed is recorded with the change, whoever ran the sync: the loop's first full sync (which fills an
    // empty copy) is where "added" is counted, not a sync someone asks for a moment later.
    if (counts.added + counts.updated + counts.removed > 0) {
      await recordActivity(tx, input.actor ?? SYSTEM_ACTOR, {
        action: 'catalog.sync',
        target: { type: 'catalog', id: 'catalog', name: 'catalog' },
        after: { ...counts, full: input.full },
      });
    }
    return { ...counts, checked_at: input.checkedAt };
  });
}

/** Drops the copy (a new Hub or key sees another catalog). */
export async function clearCatalog(tx: Tx) {
  await tx.execute(sql`delete from ${catalogTemplates}`);
}
