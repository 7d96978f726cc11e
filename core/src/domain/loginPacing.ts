/**
 * The growing wait of strange clients (no valid device token) for one username, as a line: each attempt gets the
 * next slot, at least its delay after the previous attempt's slot and after its own arrival, so parallel requests
 * from many addresses go through one per delay, not all at once. The line is bounded: a full one answers 429 with
 * Retry-After (when its head leaves). Per process: Core processes on one database each keep their own lines.
 * Memory: an entry exists only while attempts wait in it, and at most MAX_USERNAMES entries (least recently used
 * dropped); each waiting attempt holds one timer of at most queueMax × maxMs.
 */
import { LRUCache } from 'lru-cache';
import type { CoreConfig } from '../config';
import { ServiceError } from './errors';

/** stepMs: added per failure from the 10th; maxMs: the wait (and spacing) at most; queueMax: waiting at most. */
export type LoginPacingConfig = NonNullable<CoreConfig['loginPacing']>;

export const LOGIN_PACING: LoginPacingConfig = { stepMs: 250, maxMs: 5_000, queueMax: 6 };
const MAX_USERNAMES = 10_000;

/** The slots (epoch ms, ascending) of the attempts waiting in one username's line. */
interface Line {
  slots: number[];
}

export class LoginPacer {
  private readonly lines = new LRUCache<string, Line>({ max: MAX_USERNAMES });

  constructor(readonly config: LoginPacingConfig = LOGIN_PACING) {}

  /** The wait for an attempt that sees `failures` failures for its username within the window. */
  delayFor(failures: number, slowFrom: number) {
    if (failures < slowFrom) return 0;
    return Math.min(this.config.maxMs, (failures - slowFrom + 1) * this.config.stepMs);
  }

  /** Throws the 429 of a full line (checked before any database work, and again when taking a place). */
  refuseIfFull(username: string) {
    const line = this.lines.get(username);
    const now = Date.now();
    if (line && line.slots.length >= this.config.queueMax) {
      const retryAfter = Math.ceil((line.slots[0]! - now) / 1000);
      throw new ServiceError(
        'rate_limited',
        'too many sign-ins are waiting for this username from clients it does not know; ' +
          'try again later, or from a browser that signed in before',
        { retryAfterSeconds: Math.max(1, retryAfter) },
      );
    }
  }

  /**
   * Takes the next place in the username's line and waits for it: at least `delayMs` after the previous slot and
   * after now. Throws the 429 of a full line without waiting.
   */
  async wait(username: string, delayMs: number) {
    this.refuseIfFull(username);
    const now = Date.now();
    const line = this.lines.get(username) ?? { slots: [] };
    const slot = Math.max(now, line.slots.at(-1) ?? now) + delayMs;
    line.slots.push(slot);
    this.lines.set(username, line);
    try {
      await new Promise((resolve) => setTimeout(resolve, slot - now));
    } finally {
      const at = line.slots.indexOf(slot);
      if (at >= 0) line.slots.splice(at, 1);
      // The last one out leaves nothing to keep: its slot is past, so the next attempt starts from its own arrival.
      if (line.slots.length === 0 && this.lines.peek(username) === line) this.lines.delete(username);
    }
  }
}
