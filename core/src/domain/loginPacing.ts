/**
 * The growing wait of strange clients (no valid device token) for one username, as a line: each attempt gets the
 * next slot, at least its delay after the previous attempt's slot and after its own arrival, so parallel requests
 * from many addresses go through one per delay, not all at once. The line is bounded: a full one answers 429 with
 * Retry-After (when its head leaves).
 *
 * The line lives in the database (`login_lines`), so every Core process on it shares one line per username: two
 * processes do not give an attacker two lines (twice the guesses). A place is taken by one upsert whose row lock
 * orders concurrent attempts from any process (no advisory lock); the database's clock decides the slots, so the
 * processes' clocks need not agree. A slot leaves the line when its time has passed.
 * Memory: the wait itself (one timer of at most queueMax × maxMs per waiting attempt), and per process the moment
 * until which a username's line is known to be full (at most MAX_USERNAMES, least recently used dropped), so that
 * a flood against a full line is refused before any database work: a line cannot empty before its head's slot.
 */
import { eq, lt, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { CoreConfig } from '../config';
import type { Db } from '../db/client';
import { loginLines } from '../db/schema';
import { ServiceError } from './errors';

/** stepMs: added per failure from the 10th; maxMs: the wait (and spacing) at most; queueMax: waiting at most. */
export type LoginPacingConfig = NonNullable<CoreConfig['loginPacing']>;

export const LOGIN_PACING: LoginPacingConfig = { stepMs: 250, maxMs: 5_000, queueMax: 6 };
const MAX_USERNAMES = 10_000;

/** The database's clock in epoch milliseconds, read when evaluated (after a row lock was waited for). */
const NOW_MS = sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

function lineFull(retryAfterMs: number) {
  return new ServiceError(
    'rate_limited',
    'too many sign-ins are waiting for this username from clients it does not know; ' +
      'try again later, or from a browser that signed in before',
    { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) },
  );
}

export class LoginPacer {
  /** Until when (this process's epoch ms) a username's line was seen full. */
  private readonly fullUntil = new LRUCache<string, number>({ max: MAX_USERNAMES });

  constructor(
    private readonly db: Db,
    readonly config: LoginPacingConfig = LOGIN_PACING,
  ) {}

  /** The wait for an attempt that sees `failures` failures for its username within the window. */
  delayFor(failures: number, slowFrom: number) {
    if (failures < slowFrom) return 0;
    return Math.min(this.config.maxMs, (failures - slowFrom + 1) * this.config.stepMs);
  }

  /** Throws the 429 of a line this process saw full and that cannot have emptied yet; no database work. */
  refuseIfFull(username: string) {
    const until = this.fullUntil.get(username);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left > 0) throw lineFull(left);
    this.fullUntil.delete(username);
  }

  /**
   * Takes the next place in the username's line and waits for it: at least `delayMs` after the previous slot and
   * after now. Throws the 429 of a full line without waiting.
   */
  async wait(username: string, delayMs: number) {
    this.refuseIfFull(username);
    const delay = Math.round(delayMs);
    // Lines whose last slot has passed hold nothing: dropping them keeps the table to the lines in use.
    await this.db.delete(loginLines).where(lt(loginLines.tail, NOW_MS));
    const next = sql`greatest(${NOW_MS}, login_lines.tail) + ${delay}::bigint`;
    const [taken] = await this.db
      .insert(loginLines)
      .values({ username, slots: sql`array[${NOW_MS} + ${delay}::bigint]`, tail: sql`${NOW_MS} + ${delay}::bigint` })
      .onConflictDoUpdate({
        target: loginLines.username,
        set: {
          slots: sql`array(select s from unnest(login_lines.slots) s where s > ${NOW_MS} order by s) || ${next}`,
          tail: next,
        },
        setWhere: sql`(select count(*) from unnest(login_lines.slots) s where s > ${NOW_MS}) < ${this.config.queueMax}`,
      })
      .returning({ slot: loginLines.tail, now: NOW_MS.mapWith(Number) });
    if (!taken) {
      // Full: told when its head leaves (a place may be free by then).
      const [line] = await this.db
        .select({
          head: sql`(select min(s) from unnest(${loginLines.slots}) s where s > ${NOW_MS})`.mapWith(Number),
          now: NOW_MS.mapWith(Number),
        })
        .from(loginLines)
        .where(eq(loginLines.username, username));
      const left = line?.head ? line.head - line.now : 1_000;
      this.fullUntil.set(username, Date.now() + left);
      throw lineFull(left);
    }
    const ms = Number(taken.slot) - taken.now;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }
}
