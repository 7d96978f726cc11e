/**
 * Security headers of every answer (pages, APIs, health checks). Pages get their Content-Security-Policy
 * with a per-request nonce from proxy.ts; machine answers (JSON, SSE) get the strictest policy, as
 * GitHub's API does: nothing may load, nothing may frame it.
 */
import { config } from '../config';

/** Headers for every answer. HSTS only when the Hub is served over https (a browser ignores it over http anyway). */
export function baseSecurityHeaders(): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'x-frame-options': 'DENY',
    ...(config.hubUrl.startsWith('https://')
      ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' }
      : {}),
  };
}

/** The policy of answers that are not pages (REST, /mcp, tRPC, health). */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** The policy of dashboard pages: scripts only with this request's nonce (and what they load), no inline script. */
export function pageCsp(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    // React and Next set style attributes; no script can run from a style.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? ' ws:' : ''}`,
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request refusal for what a browser sends with the session cookie on its own (CSRF): the
 * dashboard's tRPC mutations and the export download. A request that carries its own bearer token is not
 * at risk (a third-party page cannot know it). Fetch metadata first (Sec-Fetch-Site: only same-origin or
 * none, as GitHub and Grafana do), Origin for browsers without it. Returns why it is refused, or null.
 */
export function crossSiteRefusal(
  req: { method: string; headers: Headers; ownOrigin: string },
  guardSafeMethods: boolean,
): string | null {
  if (!guardSafeMethods && SAFE_METHODS.has(req.method)) return null;
  if (req.headers.has('authorization')) return null;
  const site = req.headers.get('sec-fetch-site');
  if (site) return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site: ${site}`;
  const origin = req.headers.get('origin');
  if (origin && origin !== req.ownOrigin && origin !== new URL(config.hubUrl).origin) return `Origin: ${origin}`;
  return null;
}
