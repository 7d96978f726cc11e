/** Request ids, without the logger (for code that must not load pino, e.g. the Hub's Next.js proxy). */
import { randomUUID } from 'node:crypto';

/** A caller's (or its load balancer's) request id is kept when it is a plain token of sane length. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The id of a request: the X-Request-Id it came with when that looks like one, else a new UUID. */
export function requestIdFrom(given: string | string[] | null | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
