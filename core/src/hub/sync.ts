/**
 * The catalog sync loop. First a full sync (every page of the catalog the key sees), then
 * `updates?since=<checked_at>` every CORE_HUB_SYNC_INTERVAL seconds with If-None-Match, following
 * has_more until the Hub says it is complete. Each answer is applied with its checked_at in one
 * transaction. Hub unreachable or 5xx: back off (5 s doubling, at most 5 min), keep serving the copy,
 * show the error. Key refused (401): stop and say so until an admin connects again.
 * Syncs never overlap: POST /catalog/sync waits for the one in flight, then runs its own.
 */
import type { Db } from '../db/client';
import type { Logger } from '../log';
import type { Actor } from '../domain/activity';
import { applySync, StaleConnection, type CatalogTemplate, type SyncCounts } from '../domain/catalog';

/** What one sync did; `not_modified`: the Hub answered 304 (nothing changed since checked_at). */
export type SyncResult = SyncCounts & { not_modified: boolean };
import { ServiceError } from '../domain/errors';
import { HubError } from './client';
import type { HubConnection, HubCredentials } from './connection';
import { recordSync, type SyncOutcome } from '../metrics';

const PAGE_LIMIT = 100;
const MAX_PAGES = 10_000;
const BACKOFF_FIRST_MS = 5_000;
const BACKOFF_MAX_MS = 5 * 60_000;

export class CatalogSync {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;
  private failures = 0;
  private registeredFor: Date | null = null;
  /** A kick during a tick: the next tick runs at once instead of after the interval. */
  private kicked = false;

  constructor(
    private readonly db: Db,
    private readonly connection: HubConnection,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  /** Starts the loop: registration and a sync now, then every interval. */
  start() {
    this.stopped = false;
    this.running = this.connection
      .forgetEnvironmentRefusal()
      .catch((err: unknown) => this.log.warn({ error: String(err) }, 'hub state not reset'));
    this.schedule(0);
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running.catch(() => {});
  }

  /** After a new connection: register and sync at once. */
  kick() {
    this.registeredFor = null;
    this.failures = 0;
    this.kicked = true;
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number) {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick() {
    this.kicked = false;
    let next = this.intervalMs;
    try {
      const result = await this.syncNow();
      recordSync(result.not_modified ? 'not_modified' : 'ok');
      this.failures = 0;
    } catch (err) {
      recordSync(syncOutcomeOf(err));
      if (err instanceof ServiceError && err.reason === 'unavailable') {
        this.failures++;
        next = Math.min(BACKOFF_FIRST_MS * 2 ** (this.failures - 1), BACKOFF_MAX_MS);
        next = Math.round(next * (0.8 + Math.random() * 0.4));
        this.log.warn({ error: err.message, retry_in_s: Math.round(next / 1000) }, 'hub sync failed; backing off');
      } else if (err instanceof ServiceError && err.reason === 'key_refused') {
        this.log.error(
          { error: err.message },
          'the hub refused the instance key; catalog sync stopped until the key is replaced',
        );
        if (!this.kicked) return; // no reschedule: kick() restarts after a new connection
      } else if (!(err instanceof ServiceError && err.code === 'not_found')) {
        this.log.warn({ error: err instanceof Error ? err.message : String(err) }, 'hub sync failed');
      }
    }
    this.schedule(this.kicked ? 0 : next);
  }

  /**
   * One sync (serialized with any other), for `actor` (the loop's are the system's): what it changes is recorded
   * as theirs, in the change's transaction. Throws ServiceError: not_found (no Hub configured), bad_gateway (the Hub's
   * problem).
   */
  syncNow(actor?: Actor): Promise<SyncResult> {
    const run = this.running.catch(() => {}).then(() => this.syncOnce(actor));
    this.running = run;
    return run;
  }

  private async syncOnce(actor: Actor | undefined): Promise<SyncResult> {
    let creds = await this.connection.credentials();
    if (!creds) throw new ServiceError('not_found', 'no Hub is configured: PUT /api/v1/settings/hub first');
    if (creds.row.keyRefused) {
      throw new ServiceError(
        'bad_gateway',
        `${creds.row.lastError ?? 'the Hub refused the instance key'}; sync stopped until a valid key is set`,
        { reason: 'key_refused' },
      );
    }
    try {
      if (this.registeredFor?.getTime() !== creds.row.connectedAt.getTime()) {
        try {
          await this.connection.register(creds);
          this.registeredFor = creds.row.connectedAt;
          creds = (await this.connection.credentials()) ?? creds;
        } catch (err) {
          // The Hub refusing the report itself (a 4xx other than 401) must not stop the catalog: tried again next time.
          if (!(err instanceof HubError && err.fault === 'rejected')) throw err;
          this.log.warn({ error: err.message }, 'the hub refused the instance report; the catalog still syncs');
        }
      } else {
        await this.connection.updateDns(creds);
      }
      return await this.pull(creds, actor);
    } catch (err) {
      if (err instanceof StaleConnection)
        throw new ServiceError('conflict', 'the Hub connection changed during the sync; sync again');
      if (!(err instanceof HubError)) throw err;
      await this.connection.recordError(err.message, err.fault === 'key_refused');
      throw new ServiceError('bad_gateway', err.message, { reason: err.fault });
    }
  }

  private async pull(creds: HubCredentials, actor: Actor | undefined): Promise<SyncResult> {
    const generation = creds.row.connectedAt;
    if (creds.row.checkedAt === null) return this.fullSync(creds, generation, actor);
    let since = creds.row.checkedAt;
    let etag = creds.row.etag;
    const total: SyncResult = { added: 0, updated: 0, removed: 0, checked_at: since, not_modified: false };
    for (let round = 0; round < MAX_PAGES; round++) {
      const answer = await creds.client.updates(since, etag);
      if (answer === null) {
        await applySync(this.db, {
          full: false,
          templates: [],
          removedIds: [],
          checkedAt: since,
          etag,
          generation,
          actor,
        });
        return { ...total, not_modified: round === 0 };
      }
      const counts = await applySync(this.db, {
        full: false,
        templates: answer.templates as CatalogTemplate[],
        removedIds: answer.removed.map((r) => r.id),
        checkedAt: answer.checked_at,
        // An ETag names a complete answer only; a capped one is asked again from its checked_at.
        etag: answer.has_more ? null : answer.etag,
        generation,
        actor,
      });
      total.added += counts.added;
      total.updated += counts.updated;
      total.removed += counts.removed;
      total.checked_at = counts.checked_at;
      if (!answer.has_more) return total;
      since = answer.checked_at;
      etag = null;
    }
    throw new HubError('unavailable', `the Hub kept answering has_more after ${MAX_PAGES} rounds`);
  }

  /**
   * Every page of the catalog. The watermark is taken from the Hub before the first page, so a change made
   * while the pages are read is fetched again by the next update: it is never missed.
   */
  private async fullSync(creds: HubCredentials, generation: Date, actor: Actor | undefined): Promise<SyncResult> {
    const mark = await creds.client.updates(new Date().toISOString(), null);
    const checkedAt = mark!.checked_at;
    const templates: CatalogTemplate[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await creds.client.listTemplates(page, PAGE_LIMIT);
      templates.push(...(answer.templates as CatalogTemplate[]));
      if (page >= answer.pagination.totalPages || answer.templates.length === 0) break;
    }
    const counts = await applySync(this.db, {
      full: true,
      templates: dedupe(templates),
      removedIds: [],
      checkedAt,
      etag: null,
      generation,
      actor,
    });
    this.log.info({ templates: templates.length, ...counts }, 'hub catalog synced (full)');
    return { ...counts, not_modified: false };
  }
}

function syncOutcomeOf(err: unknown): SyncOutcome {
  if (err instanceof ServiceError && err.reason === 'unavailable') return 'unavailable';
  if (err instanceof ServiceError && err.reason === 'key_refused') return 'key_refused';
  if (err instanceof ServiceError && err.code === 'not_found') return 'not_configured';
  return 'error';
}

/** A template that moved between pages while they were read appears twice: keep its last copy. */
function dedupe(templates: CatalogTemplate[]): CatalogTemplate[] {
  return [...new Map(templates.map((t) => [t.id, t])).values()];
}
