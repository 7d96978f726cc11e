/**
 * The security headers of both services, written once: every answer gets the base set; machine answers (JSON,
 * SSE, MCP, errors) the strictest policy, as GitHub's API does (nothing may load, nothing may frame it); pages
 * the policy of how they are built: the Hub's Next.js pages with a per-request nonce, Core's built single-page
 * app with only its own files (no inline script: Vite emits none).
 */

/** Headers for every answer. HSTS only when the service is served over https (a browser ignores it over http). */
export function baseSecurityHeaders(opts: { https: boolean }): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'x-frame-options': 'DENY',
    ...(opts.https ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

/** The policy of answers that are not pages (REST, /mcp, tRPC, health, errors). */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** A page policy: scripts and connections as given; React sets style attributes (no script can run from a style). */
function page(script: string, connect: string): string {
  return [
    "default-src 'self'",
    `script-src ${script}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The Hub's pages: scripts only with this request's nonce (and what they load), no inline script. */
export function pageCsp(nonce: string, dev = false): string {
  return page(`'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`, `'self'${dev ? ' ws:' : ''}`);
}

/**
 * A built single-page app served from the service's own origin (Core's web frontend): scripts only from the
 * origin itself, no inline script. `connect` names what the page may call besides its own origin (Core's: the
 * OpenID provider, which the browser talks to for sign-in).
 */
export function appCsp(connect: string[] = []): string {
  return page("'self'", ["'self'", ...connect].join(' '));
}
