/**
 * The Next.js proxy (proxy.ts): a nonce CSP per page request (handed to Next on the request so it marks
 * its scripts), the base security headers, and the cross-site refusal of cookie-authenticated tRPC
 * mutations and of the export download.
 */
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { proxy } from '../../proxy';

const HUB = 'http://hub.test';

function run(path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  return proxy(new NextRequest(`${HUB}${path}`, { method: init.method ?? 'GET', headers: init.headers }));
}

describe('security headers', () => {
  it('gives each page a fresh nonce policy without unsafe-inline scripts, and passes it to Next', () => {
    const a = run('/templates');
    const b = run('/templates');
    const csp = a.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(csp).toContain(`script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp.split(';').find((d) => d.trim().startsWith('script-src'))).not.toContain('unsafe-inline');
    expect(b.headers.get('content-security-policy')).not.toContain(nonce);
    // NextResponse.next({request: {headers}}) forwards the overridden request headers to the renderer.
    expect(a.headers.get('x-middleware-request-content-security-policy')).toBe(csp);
    expect(a.headers.get('x-middleware-request-x-nonce')).toBe(nonce);
    for (const res of [a, run('/api/trpc/profile.get')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
    expect(run('/api/trpc/profile.get').headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
  });
});

describe('cross-site requests', () => {
  const cookie = { cookie: 'authjs.session-token=abc' };

  it('refuses cookie-authenticated tRPC mutations from another site (403 {code, message})', async () => {
    for (const headers of [
      { ...cookie, 'sec-fetch-site': 'cross-site' },
      { ...cookie, 'sec-fetch-site': 'same-site' },
      { ...cookie, origin: 'https://evil.example' },
    ]) {
      const res = run('/api/trpc/profile.update', {
        method: 'POST',
        headers: { ...headers, 'x-request-id': 'cross-site-0001' },
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('x-request-id')).toBe('cross-site-0001');
      expect(await res.json()).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining('Cross-site request refused'),
        request_id: 'cross-site-0001',
      });
    }
  });

  it('lets same-origin mutations, cross-site reads and bearer-token calls through', () => {
    const passes = [
      run('/api/trpc/profile.update', {
        method: 'POST',
        headers: { ...cookie, 'sec-fetch-site': 'same-origin', origin: HUB },
      }),
      run('/api/trpc/profile.update', { method: 'POST', headers: { ...cookie, origin: HUB } }),
      run('/api/trpc/profile.update', {
        method: 'POST',
        headers: { authorization: 'Bearer x', 'sec-fetch-site': 'cross-site' },
      }),
      run('/api/trpc/profile.get', { headers: { ...cookie, 'sec-fetch-site': 'cross-site' } }),
    ];
    for (const res of passes) expect(res.status).toBe(200);
  });

  it('refuses the export download from another site, even as a GET', () => {
    expect(run('/api/export/addon-events', { headers: { ...cookie, 'sec-fetch-site': 'cross-site' } }).status).toBe(
      403,
    );
    expect(run('/api/export/addon-events', { headers: { ...cookie, 'sec-fetch-site': 'same-origin' } }).status).toBe(
      200,
    );
    expect(run('/api/export/addon-events', { headers: { ...cookie, 'sec-fetch-site': 'none' } }).status).toBe(200);
  });
});
