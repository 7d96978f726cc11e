/**
 * Security headers of every answer (pages, APIs, health checks), the set Core sends too (@shared/ops/security-headers).
 * Pages get their Content-Security-Policy with a per-request nonce from proxy.ts; machine answers (JSON, SSE) get
 * the strictest policy, as GitHub's API does: nothing may load, nothing may frame it.
 */
import { ServiceError } from '@shared/ops';
import { baseSecurityHeaders as sharedBase } from '@shared/ops/security-headers';
import { config } from '../config';

export { API_CSP, pageCsp } from '@shared/ops/security-headers';

/** Headers for every answer (the set both services send, @shared/ops); HSTS when the Hub is served over https. */
export function baseSecurityHeaders(): Record<string, string> {
  return sharedBase({ https: config.hubUrl.startsWith('https://') });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request refusal for what a browser sends with the session cookie on its own (CSRF): the
 * dashboard's tRPC mutations and the export download. A request that carries its own bearer token is not
 * at risk (a third-party page cannot know it). Fetch metadata first (Sec-Fetch-Site: only same-origin or
 * none, as GitHub and Grafana do), Origin for browsers without it. Returns the refusal (403), or null.
 */
export function crossSiteRefusal(
  req: { method: string; headers: Headers; ownOrigin: string },
  guardSafeMethods: boolean,
): ServiceError | null {
  const why = crossSiteReason(req, guardSafeMethods);
  if (!why) return null;
  return new ServiceError(
    'forbidden',
    `Cross-site request refused (${why}): use the dashboard, or send a bearer token`,
  );
}

function crossSiteReason(req: { method: string; headers: Headers; ownOrigin: string }, guardSafeMethods: boolean) {
  if (!guardSafeMethods && SAFE_METHODS.has(req.method)) return null;
  if (req.headers.has('authorization')) return null;
  const site = req.headers.get('sec-fetch-site');
  if (site) return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site: ${site}`;
  const origin = req.headers.get('origin');
  if (origin && origin !== req.ownOrigin && origin !== new URL(config.hubUrl).origin) return `Origin: ${origin}`;
  return null;
}
