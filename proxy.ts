/**
 * Next.js proxy (Next 16's middleware) for everything Next serves — pages, /api/trpc, sign-in, the export
 * download: a per-request nonce Content-Security-Policy for pages (Next puts the nonce on its own scripts;
 * no inline script runs without it), the base security headers, and the cross-site refusal for
 * cookie-authenticated tRPC mutations and the export route. REST /api/v1 and /mcp get theirs at the
 * production edge (server/http/edge.ts).
 */
import { requestIdFrom } from '@shared/logger/request-id';
import { errorAnswer } from '@shared/ops';
import { NextResponse, type NextRequest } from 'next/server';
import { API_CSP, baseSecurityHeaders, crossSiteRefusal, pageCsp } from './server/http/securityHeaders';
import { PAGE_PATH_HEADER } from './server/auth/pagePath';
import { config as hubConfig } from './server/config';

/** Path and query of a page request, without Next's internal `_rsc` cache-busting parameter. */
function pagePath(url: URL): string {
  const search = new URLSearchParams(url.search);
  search.delete('_rsc');
  const query = search.toString();
  return `${url.pathname}${query ? `?${query}` : ''}`;
}

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  const isApi = pathname.startsWith('/api/');
  const guarded = pathname.startsWith('/api/trpc') ? 'mutations' : pathname.startsWith('/api/export/') ? 'all' : null;
  if (guarded) {
    const refusal = crossSiteRefusal(
      { method: request.method, headers: request.headers, ownOrigin: request.nextUrl.origin },
      guarded === 'all',
    );
    if (refusal) {
      // The one error model: the edge's request id (it passes it on in X-Request-Id), or a new one under next dev.
      const requestId = requestIdFrom(request.headers.get('x-request-id'));
      const answer = errorAnswer(refusal, requestId);
      return NextResponse.json(answer.body, {
        status: answer.status,
        headers: {
          ...baseSecurityHeaders(),
          ...answer.headers,
          'content-security-policy': API_CSP,
          'x-request-id': requestId,
        },
      });
    }
  }

  let response: NextResponse;
  let csp: string;
  if (isApi) {
    csp = API_CSP;
    response = NextResponse.next();
  } else {
    const nonce = Buffer.from(crypto.randomUUID()).toString('base64');
    csp = pageCsp(nonce, hubConfig.isDevelopment);
    // Next reads the policy from the request to put the nonce on the scripts it renders.
    const headers = new Headers(request.headers);
    headers.set('x-nonce', nonce);
    headers.set('content-security-policy', csp);
    // The page asked for (path and query): where sign-in returns to when the page requires it
    // (server/auth/session.ts requireUser). Always set here, so a client cannot supply its own.
    headers.set(PAGE_PATH_HEADER, pagePath(request.nextUrl));
    response = NextResponse.next({ request: { headers } });
  }
  response.headers.set('content-security-policy', csp);
  for (const [name, value] of Object.entries(baseSecurityHeaders())) response.headers.set(name, value);
  return response;
}

export const config = {
  // Not for static assets (hashed files). In production REST /api/v1 never reaches Next (server/http/edge.ts).
  matcher: ['/((?!_next/static|_next/image|favicon\\.ico).*)'],
};
