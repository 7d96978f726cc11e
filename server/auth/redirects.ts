/**
 * Where a browser may be sent after signing in: only this Hub. Decided on the parsed URL (as the browser
 * will read it: tabs and newlines dropped, backslashes as slashes), comparing origins, never on string
 * prefixes — `//evil.example`, `/\evil.example`, `/\t/evil.example` and `https://hub.example.evil.example`
 * all leave the site.
 */
import { config } from '../config';

/** The same-origin path (with query and fragment) of `value`, or `fallback` when it points elsewhere. */
export function sameOriginPath(value: unknown, fallback = '/account', base: string = config.hubUrl): string {
  if (typeof value !== 'string' || value === '') return fallback;
  let target: URL;
  const origin = new URL(base).origin;
  try {
    target = new URL(value, origin);
  } catch {
    return fallback;
  }
  return target.origin === origin ? `${target.pathname}${target.search}${target.hash}` : fallback;
}
