/**
 * Security headers on every answer Core sends (issue 34), from the set the Hub sends too
 * (@shared/ops/security-headers): the web frontend's page and assets, the API, errors, /mcp and the probes.
 * Pages may run only scripts of Core's own origin; nothing else may load anything; no answer may be framed;
 * API answers (a secret's value above all) are never stored by a cache.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreWithAdmin } from './helpers';

let env: Awaited<ReturnType<typeof coreWithAdmin>>;
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'core-web-'));
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

beforeAll(async () => {
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(
    path.join(dist, 'index.html'),
    '<!doctype html><title>Core</title><script type="module" src="/assets/index-abc.js"></script><div id="root"></div>',
  );
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc.js'), 'console.log("app")');
  env = await coreWithAdmin({ webDist: dist });
});
afterAll(async () => {
  await env?.stop();
  fs.rmSync(dist, { recursive: true, force: true });
});

const directive = (csp: string | null, name: string) =>
  csp
    ?.split(';')
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `));

function expectBase(headers: Headers, what: string) {
  expect(headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(headers.get('x-frame-options'), what).toBe('DENY');
  expect(headers.get('referrer-policy'), what).toBe('strict-origin-when-cross-origin');
  expect(directive(headers.get('content-security-policy'), 'frame-ancestors'), what).toBe("frame-ancestors 'none'");
  // Core's URL in the tests is http: no HSTS (a browser ignores it over http anyway).
  expect(headers.get('strict-transport-security'), what).toBeNull();
}

describe('the web frontend', () => {
  it('its page (and every client-side route) may run only scripts from Core itself', async () => {
    for (const p of ['/', '/login', '/deployments/x']) {
      const res = await env.t.call('GET', p);
      expect(res.status, p).toBe(200);
      expectBase(res.headers, p);
      const csp = res.headers.get('content-security-policy');
      expect(directive(csp, 'script-src'), p).toBe("script-src 'self'");
      expect(directive(csp, 'default-src'), p).toBe("default-src 'self'");
      expect(directive(csp, 'object-src'), p).toBe("object-src 'none'");
      expect(res.headers.get('cache-control'), p).toBe('no-store');
    }
  });

  it('its hashed assets carry the base set and may be cached', async () => {
    const res = await env.t.call('GET', '/assets/index-abc.js');
    expect(res.status).toBe(200);
    expectBase(res.headers, 'asset');
    expect(res.headers.get('cache-control')).not.toBe('no-store');
  });

  it('the API reference page runs no inline script either', async () => {
    const res = await env.t.call('GET', '/api/v1/reference');
    expect(res.status).toBe(200);
    expect(directive(res.headers.get('content-security-policy'), 'script-src')).toBe("script-src 'self'");
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });
});

describe('the API', () => {
  it('a secret’s value is never stored by a cache, and loads nothing', async () => {
    const put = await env.t.call('PUT', '/api/v1/secrets/db.password', {
      token: env.admin,
      body: { value: 'hunter2-but-longer' },
    });
    expect(put.status).toBe(200);
    const res = await env.t.call('GET', '/api/v1/secrets/db.password', { token: env.admin });
    expect(res.status).toBe(200);
    expect(res.body.value).toBe('hunter2-but-longer');
    expectBase(res.headers, 'secret');
    expect(res.headers.get('content-security-policy')).toBe(API_CSP);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('sign-in, errors, unknown paths, the OpenAPI document, /mcp and the probes carry the set too', async () => {
    const answers = {
      login: await env.t.call('POST', '/api/v1/auth/login', { body: { username: 'root', password: 'wrong one!' } }),
      unauthorized: await env.t.call('GET', '/api/v1/secrets'),
      malformed: await env.t.call('POST', '/api/v1/users', { token: env.admin, body: '{"a":' }),
      unknown: await env.t.call('GET', '/api/v2/nothing'),
      openapi: await env.t.call('GET', '/api/v1/openapi.json'),
      mcp: await env.t.call('POST', '/mcp', { body: {} }),
      healthz: await env.t.call('GET', '/healthz'),
      readyz: await env.t.call('GET', '/readyz'),
    };
    expect(answers.login.status).toBe(401);
    expect(answers.unauthorized.status).toBe(401);
    expect(answers.malformed.status).toBe(400);
    expect(answers.unknown.status).toBe(404);
    for (const [what, res] of Object.entries(answers)) {
      expectBase(res.headers, what);
      expect(res.headers.get('content-security-policy'), what).toBe(API_CSP);
      expect(res.headers.get('cache-control'), what).toBe('no-store');
    }
  });
});
