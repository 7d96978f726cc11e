/**
 * The security headers of every answer Core sends (the web frontend, its assets, the API, errors, /mcp), the same
 * set as the Hub's (@shared/ops/security-headers): nosniff, a referrer policy, no framing, and a
 * Content-Security-Policy by kind — HTML (the web frontend, the API reference) may run only scripts from Core's
 * own origin; everything else loads nothing. Answers are not stored by caches (`no-store`: an API answer may carry
 * a secret value or a token) unless the handler chose otherwise; the web frontend's hashed assets may be cached.
 */
import { API_CSP, appCsp, baseSecurityHeaders } from '@shared/ops/security-headers';
import type { MiddlewareHandler } from 'hono';

/**
 * What the web frontend may call besides Core: the OpenID provider (discovery and token endpoints, from the
 * browser) — any https origin, plain http only on this machine, as the frontend itself allows.
 */
const WEB_CONNECT = ['https:', 'http://localhost:*', 'http://127.0.0.1:*'];
/** Vite's content-hashed build output (core/web/dist/assets): a new build has new names. */
const HASHED_ASSETS = /^\/assets\//;

export function securityHeaders(coreUrl: string): MiddlewareHandler {
  const base = Object.entries(baseSecurityHeaders({ https: coreUrl.startsWith('https://') }));
  const webCsp = appCsp(WEB_CONNECT);
  return async (c, next) => {
    await next();
    let res = c.res;
    const set = (name: string, value: string) => {
      try {
        res.headers.set(name, value);
      } catch {
        res = new Response(res.body, res); // a handler's own Response may have immutable headers
        res.headers.set(name, value);
      }
    };
    for (const [name, value] of base) set(name, value);
    if (!res.headers.has('content-security-policy'))
      set('content-security-policy', /^text\/html/i.test(res.headers.get('content-type') ?? '') ? webCsp : API_CSP);
    if (!res.headers.has('cache-control') && !HASHED_ASSETS.test(c.req.path)) set('cache-control', 'no-store');
    c.res = res;
  };
}
