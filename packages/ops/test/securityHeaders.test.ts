import { describe, expect, it } from 'vitest';
import { API_CSP, appCsp, baseSecurityHeaders, pageCsp } from '../src/securityHeaders';

const directive = (csp: string, name: string) =>
  csp
    .split(';')
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `));

describe('security headers', () => {
  it('the base set: nosniff, a referrer policy, no framing; HSTS only over https', () => {
    expect(baseSecurityHeaders({ https: false })).toEqual({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      'x-frame-options': 'DENY',
    });
    expect(baseSecurityHeaders({ https: true })['strict-transport-security']).toMatch(/^max-age=\d+/);
  });

  it('machine answers load nothing; pages run no inline script and cannot be framed', () => {
    expect(API_CSP).toBe("default-src 'none'; frame-ancestors 'none'");
    const app = appCsp(['https:']);
    expect(directive(app, 'script-src')).toBe("script-src 'self'");
    expect(directive(app, 'connect-src')).toBe("connect-src 'self' https:");
    expect(directive(app, 'frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(directive(app, 'object-src')).toBe("object-src 'none'");
    const hub = pageCsp('abc');
    expect(directive(hub, 'script-src')).toBe("script-src 'self' 'nonce-abc' 'strict-dynamic'");
    expect(directive(pageCsp('abc', true), 'script-src')).toContain("'unsafe-eval'");
    for (const csp of [app, hub]) expect(directive(csp, 'script-src')).not.toContain('unsafe-inline');
  });
});
