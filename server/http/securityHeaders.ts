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
    ...(config.hubUrl.startsWith('https://') ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
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
