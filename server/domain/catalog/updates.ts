/**
 * The catalog's changes since a sync point (GET /catalog/templates/updates): the sync watermark every writer in flight
 * is past, the sync points (time and id, in one opaque string), and the changed and removed templates of one page.
 * Every query filters through the visibility predicate of visibility.ts.
 */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { execRows, getDb, hasReadReplicas, readCatalog, type Db, type ReadSource } from '../../db/client';
import { LSN_SQL } from '../../db/replicas';
import { generation } from '../../db/invalidation';
import { categories, templates } from '../../db/schema';
import type { CatalogScope } from '../principal';
import { templateVisible } from './visibility';
import { CATALOG_SYNC_LOCK, sqlTimestamp } from './writes';
import { templateSelection, type TemplateRow } from './templateRow';

/**
 * The sync watermark. Catalog writers hold a shared advisory lock for their whole transaction and stamp
 * changes with clock_timestamp() taken after acquiring it; taking the lock exclusively here waits for
 * every writer in flight to commit. So each change stamped before the returned time is committed (and
 * visible to the queries that follow), and each later writer stamps a later time. Truncated down to
 * milliseconds (ISO 8601 precision), which only widens the next window.
 * With `withPosition` (read replicas) also the primary's WAL position at that moment: every change stamped
 * before the watermark is committed before it, so a replica that has replayed it has every such change.
 */
async function takeWatermark(withPosition: boolean): Promise<{ at: Date; lsn?: bigint }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CATALOG_SYNC_LOCK})`);
    const [row] = await execRows<{ at: string | Date; lsn: string | null }>(
      tx,
      sql`select date_trunc('milliseconds', clock_timestamp()) as at, ${withPosition ? sql.raw(LSN_SQL) : sql`null`} as lsn`,
    );
    return { at: new Date(row!.at), ...(row!.lsn !== null && { lsn: BigInt(row!.lsn) }) };
  });
}

/**
 * A watermark stays a watermark: every change stamped before it is committed, whenever it is used. So the
 * polls of a busy process share one (a fleet's burst of polls after a write costs one exclusive lock, not
 * one per poll), as long as it was asked for under the current catalog generation: then it waited for every
 * write this process knows of (a local writer bumps the generation holding the writers' lock; another
 * process's write is known once its notification arrived, after its commit), so a poll still sees every
 * change committed before it was made — what the caches promise. At most WATERMARK_SHARE_MS old.
 */
const WATERMARK_SHARE_MS = 200;
type SharedWatermark = { taken: number; generation: number; value: Promise<{ at: Date; lsn?: bigint }> };
const sharedWatermarks: Record<'plain' | 'position', SharedWatermark | null> = { plain: null, position: null };

function syncWatermark(withPosition: boolean): Promise<{ at: Date; lsn?: bigint }> {
  const slot = withPosition ? 'position' : 'plain';
  const shared = sharedWatermarks[slot];
  const now = Date.now();
  const current = generation('catalog');
  if (shared && shared.generation === current && now - shared.taken < WATERMARK_SHARE_MS) return shared.value;
  const value = takeWatermark(withPosition);
  sharedWatermarks[slot] = { taken: now, generation: current, value };
  value.catch(() => {
    if (sharedWatermarks[slot]?.value === value) sharedWatermarks[slot] = null;
  });
  return value;
}

/**
 * Idle polls from memory. Per scope, the stamp of its latest possible change (the newest updated_at it sees,
 * the newest exit of its audience): read once per catalog generation (every write moves it, in every
 * process) and at most IDLE_TTL_MS. A poll whose since is past that stamp has nothing to fetch: it is answered
 * "nothing changed" without a statement. The bound is conservative (an exit counts even if the template is
 * visible again): a poll it lets through still runs the exact query.
 */
// Catalog writes move the generation at once in every process; the lifetime only bounds what no write announces
// (a row changed by hand). A fleet's orgs × processes re-read their stamp once per lifetime.
const IDLE_TTL_MS = 300_000;
const latestChanges = new LRUCache<string, { generation: number; micros: Promise<bigint> }>({
  max: 100_000,
  ttl: IDLE_TTL_MS,
});

/** Microseconds since the epoch of a `YYYY-MM-DDTHH:MM:SS[.ffffff…](Z|±HH:MM)` timestamp; null if not one. */
function micros(at: string): bigint | null {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/i.exec(at);
  if (!m) return null;
  const seconds = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(seconds)) return null;
  return BigInt(seconds) * 1000n + BigInt((m[2] ?? '').slice(0, 6).padEnd(6, '0'));
}

/** Which change events (alias `e`) the scope may see: the one audience rule of the updates feed. */
function audienceOf(scope: CatalogScope) {
  return scope.kind === 'admin'
    ? sql`true`
    : scope.kind === 'org'
      ? sql`(e.audience = 'everyone' or (e.audience = 'org' and e.audience_org_id = ${scope.orgId}))`
      : sql`e.audience = 'everyone'`;
}

function latestChangeQuery(db: Db, scope: CatalogScope) {
  const audience = audienceOf(scope);
  const newestVisible = db
    .select({ at: templates.updatedAt })
    .from(templates)
    .innerJoin(categories, eq(categories.id, templates.categoryId))
    .where(templateVisible(scope))
    .orderBy(sql`${templates.updatedAt} desc`)
    .limit(1);
  return sql`select ${stampText(sql`greatest((${newestVisible}), (select max(e.at) from template_exits e where ${audience}))`)} as stamp`;
}

async function nothingChangedSince(scope: CatalogScope, since: string, source: ReadSource): Promise<boolean> {
  const from = micros(parseSyncPoint(since).at);
  if (from === null) return false;
  const key = scope.kind === 'org' ? scope.orgId : scope.kind;
  const current = generation('catalog');
  let entry = latestChanges.get(key);
  if (!entry || entry.generation !== current) {
    const stamp = readCatalog(source, (db) =>
      execRows<{ stamp: string | null }>(db, latestChangeQuery(db, scope)),
    ).then(([row]) => (row?.stamp ? micros(`${row.stamp}Z`)! : -1n));
    entry = { generation: current, micros: stamp };
    latestChanges.set(key, entry);
    stamp.catch(() => latestChanges.delete(key));
  }
  return (await entry.micros) < from;
}

export interface RemovedTemplate {
  id: string;
  slug: string;
  removed_at: string;
}

/** Templates plus removals per updates answer: a bulk write or a sync from 1970 costs one page. */
export const UPDATES_PAGE_SIZE = 500;

/**
 * A point in the (stamp, id) order of changes, written as an RFC 3339 timestamp: the stamp to the
 * microsecond, then (inside a group of changes sharing one stamp) the id as 39 more decimal digits, which
 * subdivide that microsecond in id order. So checked_at stays a timestamp a client stores and sends back
 * as `since`, and a page may end inside a bulk write without the next one starting that write again.
 */
export interface SyncPoint {
  /** `YYYY-MM-DDTHH:MM:SS.ffffff` plus an offset, for PostgreSQL. */
  at: string;
  /** Changes at exactly `at` with an id up to this one were already sent. */
  afterId: string | null;
}

const UUID_DIGITS = 39;

export function parseSyncPoint(since: string): SyncPoint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/i.exec(since);
  if (!m) return { at: since, afterId: null };
  const fraction = m[2] ?? '';
  const at = `${m[1]}.${fraction.slice(0, 6).padEnd(6, '0')}${m[3]}`;
  if (fraction.length !== 6 + UUID_DIGITS) return { at, afterId: null };
  const hex = BigInt(fraction.slice(6)).toString(16).padStart(32, '0');
  if (hex.length !== 32) return { at, afterId: null };
  return {
    at,
    afterId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  };
}

function formatSyncPoint(stampUtc: string, id: string): string {
  return `${stampUtc}${BigInt(`0x${id.replaceAll('-', '')}`)
    .toString()
    .padStart(UUID_DIGITS, '0')}Z`;
}

/** A change's stamp as UTC text to the microsecond: fixed width, so text order is time order. */
const stampText = (column: SQL | typeof templates.updatedAt) =>
  sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

/** After the point and (when bounded) before the watermark, for a change with this stamp and id. */
function inWindow(stamp: SQL, id: SQL, from: SyncPoint, before: Date | null): SQL {
  const after = from.afterId
    ? sql`(${stamp} > ${from.at}::timestamptz or (${stamp} = ${from.at}::timestamptz and ${id} > ${from.afterId}::uuid))`
    : sql`${stamp} >= ${from.at}::timestamptz`;
  return before ? sql`${after} and ${stamp} < ${sqlTimestamp(before)}` : after;
}

type Change =
  | { kind: 'template'; stamp: string; id: string; row: TemplateRow }
  | { kind: 'removed'; stamp: string; id: string; row: RemovedTemplate };

/** Templates the scope sees that changed after `from` (and before `before`), unexecuted (the benchmark EXPLAINs it). */
export function updatedTemplatesQuery(
  db: Db,
  scope: CatalogScope,
  from: SyncPoint,
  before: Date | null,
  limit: number,
) {
  return db
    .select({ ...templateSelection, stamp: stampText(templates.updatedAt) })
    .from(templates)
    .innerJoin(categories, eq(categories.id, templates.categoryId))
    .where(and(templateVisible(scope), inWindow(sql`${templates.updatedAt}`, sql`${templates.id}`, from, before)))
    .orderBy(asc(templates.updatedAt), asc(templates.id))
    .limit(limit);
}

/** The first `limit` changes in (stamp, id) order, templates and removals merged. */
async function changesSince(
  db: Db,
  scope: CatalogScope,
  from: SyncPoint,
  before: Date | null,
  limit: number,
): Promise<Change[]> {
  const audience = audienceOf(scope);
  const [rows, removed] = await Promise.all([
    updatedTemplatesQuery(db, scope, from, before, limit),
    execRows<{ id: string; slug: string; removed_at: string | Date; stamp: string }>(
      db,
      sql`select e.template_id as id, e.slug, max(e.at) as removed_at, ${stampText(sql`max(e.at)`)} as stamp
            from template_exits e
           where e.at >= ${from.at}::timestamptz and ${audience}
             and not exists (
               select 1 from ${templates} join ${categories} on ${eq(categories.id, templates.categoryId)}
                where ${and(eq(templates.id, sql`e.template_id`), templateVisible(scope))})
           group by e.template_id, e.slug
          having ${inWindow(sql`max(e.at)`, sql`e.template_id`, from, before)}
           order by max(e.at), e.template_id
           limit ${limit}`,
    ),
  ]);
  const changes: Change[] = [
    ...rows.map(({ stamp, ...row }) => ({ kind: 'template' as const, stamp, id: row.id, row })),
    ...removed.map((r) => ({
      kind: 'removed' as const,
      stamp: r.stamp,
      id: r.id,
      row: { id: r.id, slug: r.slug, removed_at: new Date(r.removed_at).toISOString() },
    })),
  ];
  changes.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return changes.slice(0, limit);
}

/**
 * The changes a fleet's polls ask for after a write, from memory. Per scope (and read source) and catalog generation,
 * the changes after a point B and before a watermark W, read once (the two queries of changesSince, on a replica that
 * has replayed W): a poll whose since is at or after B gets its page from that list instead of three round trips of
 * its own — what changesSince(since, W) on the same database answers, since every change after B and before W is in
 * the list. W is a sync watermark like any other (every change stamped before it was committed when it was taken),
 * taken under the current generation; a poll older than B builds the list again from its own since (the polls after
 * a write come in poll order, their sinces increasing: one build per scope). A scope with more than LOG_MAX changes
 * after the asked point is not kept (the poll reads the database, as before), nor asked again more than twice.
 */
const LOG_MAX = 1_000;
type LoggedChange = Change & { micros: bigint };
interface ChangeLog {
  /** B: every change after it (and before the watermark) is in `changes`. */
  from: { micros: bigint; afterId: string };
  watermark: Date;
  changes: LoggedChange[];
}
interface LogSlot {
  generation: number;
  /** The newest build (its from is the lowest asked for under this generation). */
  log: Promise<ChangeLog | null>;
  from: { micros: bigint; afterId: string };
  overflows: number;
}
const changeLogs = new LRUCache<string, LogSlot>({ max: 10_000, maxSize: 20 * LOG_MAX, sizeCalculation: () => 1 });
const logStats = { builds: 0, served: 0 };

/** How many change-log builds and answers from memory so far (the tests count them). */
export function changeLogStats(): Readonly<typeof logStats> {
  return { ...logStats };
}

/** A point's place in the (stamp, id) order: a since without an id precedes every change of its microsecond. */
function pointOf(from: SyncPoint): { micros: bigint; afterId: string } | null {
  const at = micros(from.at);
  return at === null ? null : { micros: at, afterId: from.afterId ?? '' };
}

const atOrAfter = (a: { micros: bigint; afterId: string }, b: { micros: bigint; afterId: string }) =>
  a.micros > b.micros || (a.micros === b.micros && a.afterId >= b.afterId);

/** Whether a change comes after a point (inWindow's lower bound). */
const isAfter = (c: LoggedChange, p: { micros: bigint; afterId: string }) =>
  c.micros > p.micros || (c.micros === p.micros && c.id > p.afterId);

async function buildLog(scope: CatalogScope, from: SyncPoint, point: ChangeLog['from'], source: ReadSource) {
  logStats.builds++;
  const { at: watermark, lsn } = await syncWatermark(source === 'replica' && (await hasReadReplicas()));
  const changes = await readCatalog(source, (db) => changesSince(db, scope, from, watermark, LOG_MAX + 1), lsn);
  if (changes.length > LOG_MAX) return null;
  return {
    from: point,
    watermark,
    changes: changes.map((c) => ({ ...c, micros: micros(`${c.stamp}Z`)! })),
  } satisfies ChangeLog;
}

/** The change log that covers `from` under the current generation (built if needed), or null: read the database. */
async function changeLogFor(scope: CatalogScope, from: SyncPoint, source: ReadSource): Promise<ChangeLog | null> {
  const point = pointOf(from);
  if (point === null) return null;
  const key = `${source} ${scope.kind === 'org' ? scope.orgId : scope.kind}`;
  const current = generation('catalog');
  let slot = changeLogs.get(key);
  if (slot && slot.generation !== current) slot = undefined;
  if (slot && atOrAfter(point, slot.from)) {
    const log = await slot.log;
    if (log) return log;
  }
  if (slot && slot.overflows >= 2) return null;
  const log = buildLog(scope, from, point, source);
  const next: LogSlot = { generation: current, log, from: point, overflows: slot?.overflows ?? 0 };
  changeLogs.set(key, next);
  log.then(
    (built) => {
      if (changeLogs.get(key) !== next) return;
      if (built) changeLogs.set(key, next, { size: built.changes.length + 1 });
      else next.overflows++;
    },
    () => {
      if (changeLogs.get(key) === next) changeLogs.delete(key);
    },
  );
  return log;
}

/** A page of the changes after `from` out of a change log: what changesSince and the watermark would answer. */
function pageFromLog(log: ChangeLog, point: ChangeLog['from'], since: string) {
  const after: LoggedChange[] = [];
  for (const c of log.changes) if (isAfter(c, point)) after.push(c);
  if (after.length === 0) return { rows: [], removed: [], checkedAt: since, hasMore: false };
  const hasMore = after.length > UPDATES_PAGE_SIZE;
  const page = after.slice(0, UPDATES_PAGE_SIZE);
  const last = page.at(-1)!;
  return {
    rows: page.flatMap((c) => (c.kind === 'template' ? [c.row] : [])),
    removed: page.flatMap((c) => (c.kind === 'removed' ? [c.row] : [])),
    checkedAt: hasMore ? formatSyncPoint(last.stamp, last.id) : log.watermark.toISOString(),
    hasMore,
  };
}

/**
 * One page of changes after `since`, and the checked_at to send as the next since.
 *  - Nothing changed: checked_at is `since` itself, which is always safe (the client asks the same
 *    question again) and makes an idle client's poll the same request each time (cacheable, 304).
 *  - Otherwise the sync watermark W is taken first and only changes stamped before W are paged: no
 *    writer can still stamp a time before W, so a point inside W's past is final. A full page
 *    (has_more) ends at its last change's point; the last page ends at W.
 */
export async function templateUpdates(
  scope: CatalogScope,
  since: string,
  source: ReadSource = 'primary',
  { fromMemory = true }: { fromMemory?: boolean } = {},
) {
  const from = parseSyncPoint(since);
  if (Date.parse(since) <= Date.now() && (await nothingChangedSince(scope, since, source))) {
    return { rows: [], removed: [], checkedAt: since, hasMore: false };
  }
  if (fromMemory && Date.parse(since) <= Date.now()) {
    const log = await changeLogFor(scope, from, source);
    if (log) {
      logStats.served++;
      return pageFromLog(log, pointOf(from)!, since);
    }
  }
  // On a replica: "nothing changed" answers `since` itself, which is safe whatever the replica has replayed.
  const probe = await readCatalog(source, (db) => changesSince(db, scope, from, null, 1));
  if (probe.length === 0 && Date.parse(since) <= Date.now()) {
    return { rows: [], removed: [], checkedAt: since, hasMore: false };
  }
  // The watermark on the primary; the page on a replica only if it has replayed the watermark's position.
  const { at: watermark, lsn } = await syncWatermark(source === 'replica' && (await hasReadReplicas()));
  const changes = await readCatalog(
    source,
    (db) => changesSince(db, scope, from, watermark, UPDATES_PAGE_SIZE + 1),
    lsn,
  );
  const hasMore = changes.length > UPDATES_PAGE_SIZE;
  const page = changes.slice(0, UPDATES_PAGE_SIZE);
  const last = page.at(-1);
  return {
    rows: page.flatMap((c) => (c.kind === 'template' ? [c.row] : [])),
    removed: page.flatMap((c) => (c.kind === 'removed' ? [c.row] : [])),
    checkedAt: hasMore && last ? formatSyncPoint(last.stamp, last.id) : watermark.toISOString(),
    hasMore,
  };
}
