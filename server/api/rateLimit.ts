/**
 * Rate limits at the edge (REST /api/v1, /api/trpc and /mcp), fixed one-minute windows per key:
 *
 *   anonymous     per client address, calls without a credential            HUB_RATE_LIMIT_ANONYMOUS (120)
 *   (a client address is an IPv4 address or an IPv6 /64: @shared/ops addressBucket)
 *   credential    per instance key, user or personal access token           HUB_RATE_LIMIT_CREDENTIAL (1200)
 *   address       per client address, every call                            HUB_RATE_LIMIT_ADDRESS (2400)
 *   failed_auth   per client address, credentials that did not resolve      HUB_RATE_LIMIT_FAILED_AUTH (20)
 *
 * failed_auth is checked before a secret is looked up: once an address has sent that many unknown,
 * revoked or malformed credentials in a window, further credentials from it are refused with 429
 * without touching the database (a flood of made-up svh_/svp_ secrets costs at most that many look-ups).
 *
 * Across processes: each process counts in memory (a decision never waits for the database) and adds
 * its counts to rate_limit_windows every HUB_RATE_LIMIT_SYNC_MS (1 s) in one upsert, reading back each
 * key's total. So the limit holds for the sum of all processes, give or take one sync interval of
 * traffic; in embedded mode the same table lives in PGlite. A database outage leaves the in-memory
 * counts in force. Answers carry RateLimit-Policy and RateLimit (IETF draft-ietf-httpapi-ratelimit-headers),
 * a 429 also Retry-After.
 */
import { lt, sql } from 'drizzle-orm';
import { databaseIsOpen, getDb } from '../db/client';
import { rateLimitWindows } from '../db/schema';
import { ServiceError } from '../domain/errors';
import { gaugeOf, hubMetrics } from '../metrics';
import type { Principal } from '../domain/principal';
import { logger, wallClock } from '../log';
import { flushLater, oneAtATime } from '../batched';
import { config, type LimitName } from '../config';
import { addressBucket } from '@shared/ops';

export type { LimitName };
const WINDOW_MS = 60_000;

/** HUB_RATE_LIMIT_ANONYMOUS, _CREDENTIAL, _ADDRESS, _FAILED_AUTH (server/config.ts). */
export function limitOf(name: LimitName): number {
  return config.rateLimits[name];
}

interface Window {
  start: number;
  /** Hits of this process not yet added to the table. */
  pending: number;
  /** The table's total for this window as last read (this process's flushed hits included). */
  shared: number;
}

interface State {
  windows: Map<string, Window>;
  timer: NodeJS.Timeout | null;
  flushing: Promise<void> | undefined;
}
const state = ((globalThis as { __hubRateLimits?: State }).__hubRateLimits ??= {
  windows: new Map(),
  timer: null,
  flushing: undefined,
});
gaugeOf('hub_batched_write_queue', 'Entries waiting for a batched write', { queue: 'rate_limit_windows' }, () => {
  let n = 0;
  for (const w of state.windows.values()) if (w.pending > 0) n++;
  return n;
});

export interface LimitStatus {
  name: LimitName;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

function windowOf(key: string, now: number): Window {
  const start = now - (now % WINDOW_MS);
  let w = state.windows.get(key);
  if (!w || w.start !== start) {
    w = { start, pending: 0, shared: 0 };
    state.windows.set(key, w);
  }
  return w;
}

function statusOf(
  name: LimitName,
  limit: number,
  w: Window,
  now: number,
  exceeded: boolean,
): LimitStatus & { exceeded: boolean } {
  const remaining = limit - w.shared - w.pending;
  return {
    name,
    limit,
    remaining: remaining > 0 ? remaining : 0,
    resetSeconds: Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000)),
    exceeded,
  };
}

/**
 * A window's key (`name:subject`) by name and subject, made once per subject: every request looks up two or three
 * windows, and a key built per look-up was garbage at once. Bounded: a map starts over past 100,000 subjects.
 */
const windowKeys = new Map<LimitName, Map<string, string>>();
function windowKey(name: LimitName, subject: string): string {
  let bySubject = windowKeys.get(name);
  if (!bySubject) windowKeys.set(name, (bySubject = new Map()));
  let key = bySubject.get(subject);
  if (key === undefined) {
    if (bySubject.size >= 100_000) bySubject.clear();
    bySubject.set(subject, (key = `${name}:${subject}`));
  }
  return key;
}

/** Where a key stands, without counting a hit. */
export function peek(name: LimitName, subject: string): LimitStatus {
  const now = wallClock();
  const w = windowOf(windowKey(name, subject), now);
  const limit = limitOf(name);
  return statusOf(name, limit, w, now, w.shared + w.pending >= limit);
}

/** Counts one hit; the status says whether it was over the limit (remaining 0 before it). One status object, one read of the limit. */
export function hit(name: LimitName, subject: string): LimitStatus & { exceeded: boolean } {
  const now = wallClock();
  const w = windowOf(windowKey(name, subject), now);
  const limit = limitOf(name);
  const exceeded = w.shared + w.pending >= limit;
  if (!exceeded) {
    w.pending++;
    if (!state.timer) scheduleFlush();
  }
  return statusOf(name, limit, w, now, exceeded);
}

export function rateLimitedError(status: LimitStatus): ServiceError {
  const what =
    status.name === 'failed_auth'
      ? 'Too many failed authentication attempts from this address'
      : status.name === 'anonymous'
        ? 'Too many unauthenticated requests from this address; authenticate for a higher limit'
        : status.name === 'credential'
          ? 'Too many requests with this credential'
          : 'Too many requests from this address';
  return new ServiceError('rate_limited', `${what} (${status.limit} a minute). Retry after ${status.resetSeconds} s.`, {
    retryAfterSeconds: status.resetSeconds,
  });
}

/** The RateLimit-Policy value of a limit, made once per name and limit. */
const policies = new Map<LimitName, { limit: number; value: string }>();
function policyOf(name: LimitName, limit: number): string {
  let policy = policies.get(name);
  if (policy?.limit !== limit)
    policies.set(name, (policy = { limit, value: `"${name}";q=${limit};w=${WINDOW_MS / 1000}` }));
  return policy.value;
}

/** IETF RateLimit headers for the most constraining status of a request. */
export function rateLimitHeaders(status: LimitStatus): Record<string, string> {
  return {
    'ratelimit-policy': policyOf(status.name, status.limit),
    ratelimit: `"${status.name}";r=${status.remaining};t=${status.resetSeconds}`,
  };
}

// ---------------------------------------------------------------- sharing counts through the database

function scheduleFlush() {
  flushLater(state, config.rateLimitSyncMs, 'rate_limit', flushRateLimits);
}

let lastSweep = 0;

/**
 * Adds this process's pending hits to the table and reads back the totals (one statement), after a flush already
 * under way: awaiting it means every hit counted so far is shared.
 */
export const flushRateLimits = oneAtATime(state, async () => {
  const now = Date.now();
  // In key order: processes upserting overlapping keys then lock their rows in the same order (no deadlock).
  const batch = [...state.windows]
    .filter(([, w]) => w.pending > 0)
    .map(([key, w]) => ({ key, w, hits: w.pending }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.w.start - b.w.start));
  for (const [key, w] of state.windows) if (w.start + WINDOW_MS < now) state.windows.delete(key);
  // Sharing is best effort: after closeDatabase (shutdown, a test's teardown) the counts stay in memory.
  if (batch.length === 0 || !databaseIsOpen()) return;
  try {
    const db = await getDb();
    const rows = await db
      .insert(rateLimitWindows)
      .values(batch.map(({ key, w, hits }) => ({ key, windowStart: new Date(w.start), hits })))
      .onConflictDoUpdate({
        target: [rateLimitWindows.key, rateLimitWindows.windowStart],
        set: { hits: sql`${rateLimitWindows.hits} + excluded.hits` },
      })
      .returning({
        key: rateLimitWindows.key,
        windowStart: rateLimitWindows.windowStart,
        hits: rateLimitWindows.hits,
      });
    const totals = new Map(rows.map((r) => [`${r.key} ${r.windowStart.getTime()}`, r.hits]));
    for (const { key, w, hits } of batch) {
      w.pending -= hits;
      w.shared = totals.get(`${key} ${w.start}`) ?? w.shared + hits;
    }
    if (now - lastSweep > WINDOW_MS) {
      lastSweep = now;
      await db.delete(rateLimitWindows).where(lt(rateLimitWindows.windowStart, new Date(now - 2 * WINDOW_MS)));
    }
  } catch (err) {
    // The database is away: keep counting in memory; the pending hits are added on the next flush.
    logger.warn({ err: (err as Error).message }, 'rate-limit counts not shared');
  } finally {
    if (batch.some(({ w }) => w.pending > 0)) scheduleFlush();
  }
});

/** Forgets every in-memory window (tests: a fresh process's view). */
export function resetRateLimitMemory(): void {
  state.windows.clear();
}

// ---------------------------------------------------------------- the edge's admission of one call

/** The key a caller is rate-limited under once resolved; null for anonymous calls (limited per address). */
export function limitSubjectOf(principal: Principal): string | null {
  if (principal.kind === 'instance') {
    // An instance key's principal is made once per cached key (credentials.ts): so is its subject.
    let subject = instanceSubjects.get(principal);
    if (subject === undefined) instanceSubjects.set(principal, (subject = `svh:${principal.keyId}`));
    return subject;
  }
  return principal.kind === 'user' ? `user:${principal.userId}` : null;
}
const instanceSubjects = new WeakMap<Principal, string>();

/** A 429 that carries the RateLimit headers of the limit it hit. */
export class RateLimitRefusal extends ServiceError {
  constructor(readonly status: LimitStatus) {
    super('rate_limited', rateLimitedError(status).message, { retryAfterSeconds: status.resetSeconds });
    hubMetrics.rateLimited(status.name);
  }
}

/** The resolver (through createContext or not) refuses a credential with the domain's error, nothing else. */
function isFailedCredential(err: unknown): boolean {
  return err instanceof ServiceError && err.code === 'unauthenticated';
}

/**
 * Resolves the caller under the limits: per address first, then (when a credential was sent) the
 * failed-credential budget of the address before any look-up, then per credential or, for anonymous
 * calls, the stricter anonymous limit. Returns the resolved caller and the headers for the answer;
 * throws RateLimitRefusal (429) or the resolver's own refusal. Synchronous when `resolve` is (a cached
 * credential: no promise on the 304 poll's path), else the promise of the same.
 */
export function admit<T>(
  address: string,
  hasCredential: boolean,
  resolve: () => T | Promise<T>,
  subjectOf: (caller: T) => string | null,
): Admitted<T> | Promise<Admitted<T>> {
  address = bucketOf(address);
  const perAddress = hit('address', address);
  if (perAddress.exceeded) throw new RateLimitRefusal(perAddress);
  if (hasCredential) {
    const failures = peek('failed_auth', address);
    if (failures.remaining === 0) throw new RateLimitRefusal(failures);
  }
  let caller: T | Promise<T>;
  try {
    caller = resolve();
  } catch (err) {
    return refusedFrom(address, hasCredential, err);
  }
  // No closure on the synchronous path (a cached credential: the 304 poll).
  if (!(caller instanceof Promise)) return admitted(caller, subjectOf, address, perAddress);
  return caller.then(
    (c) => admitted(c, subjectOf, address, perAddress),
    (err: unknown) => refusedFrom(address, hasCredential, err),
  );
}

function refusedFrom(address: string, hasCredential: boolean, err: unknown): never {
  if (hasCredential && isFailedCredential(err)) hit('failed_auth', address);
  throw err;
}

function admitted<T>(
  caller: T,
  subjectOf: (caller: T) => string | null,
  address: string,
  perAddress: LimitStatus,
): Admitted<T> {
  const subject = subjectOf(caller);
  const own = subject === null ? hit('anonymous', address) : hit('credential', subject);
  if (own.exceeded) throw new RateLimitRefusal(own);
  return { caller, headers: rateLimitHeaders(own.remaining < perAddress.remaining ? own : perAddress) };
}

/** addressBucket by address, kept (a fleet calls from few addresses): bounded, starts over past 10,000. */
const buckets = new Map<string, string>();
function bucketOf(address: string): string {
  let bucket = buckets.get(address);
  if (bucket === undefined) {
    if (buckets.size >= 10_000) buckets.clear();
    buckets.set(address, (bucket = addressBucket(address)));
  }
  return bucket;
}

export interface Admitted<T> {
  caller: T;
  headers: Record<string, string>;
}
