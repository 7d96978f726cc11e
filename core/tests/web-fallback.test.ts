/**
 * The frontend's fallback (issue 21): client-side routes get the app's HTML, but unknown API paths,
 * what API tools probe for (/docs, /openapi.yaml, /swagger…) and missing files get a JSON 404 —
 * never the app's HTML with a 200. And Core's MCP server does not advertise tools.listChanged, since
 * GET /mcp (the stream such notices would travel on) answers 405.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { coreWithAdmin } from './helpers';

let env: Awaited<ReturnType<typeof coreWithAdmin>>;
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'core-web-'));

beforeAll(async () => {
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Core</title><div id="root"></div>');
  env = await coreWithAdmin({ webDist: dist });
});
afterAll(async () => {
  await env?.stop();
  fs.rmSync(dist, { recursive: true, force: true });
});

it('serves the app for its own routes', async () => {
  for (const p of ['/', '/activity', '/catalog/some-template', '/tokens']) {
    const res = await env.t.call('GET', p);
    expect(res.status, p).toBe(200);
    expect(res.headers.get('content-type'), p).toContain('text/html');
  }
});

it('answers a JSON 404 naming the path for API, docs-like and file paths', async () => {
  for (const p of [
    '/api',
    '/api/v2/things',
    '/docs',
    '/docs/index.html',
    '/openapi.yaml',
    '/swagger-ui',
    '/redoc',
    '/.well-known/openid-configuration',
    '/missing.js',
    '/assets/gone.css',
  ]) {
    const res = await env.t.call('GET', p);
    expect(res.status, p).toBe(404);
    expect(res.headers.get('content-type'), p).toContain('application/json');
    expect(res.body.message, p).toContain(p);
  }
});

it('does not advertise tools.listChanged; GET /mcp is 405 with Allow: POST', async () => {
  const issued = await env.t.call('POST', '/api/v1/tokens', {
    token: env.admin,
    body: { name: 'mcp', role: 'readonly' },
  });
  const auth = { authorization: `Bearer ${issued.body.token}` };
  const client = new Client({ name: 'caps', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.t.url}/mcp`), { requestInit: { headers: auth } }),
  );
  expect(client.getServerCapabilities()?.tools).toBeDefined();
  expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
  await client.close();
  const get = await fetch(`${env.t.url}/mcp`, { headers: { ...auth, accept: 'text/event-stream' } });
  expect(get.status).toBe(405);
  expect(get.headers.get('allow')).toBe('POST');
});

it('serves the API reference page (Swagger UI from Core itself, no CDN) without a credential', async () => {
  const res = await env.t.call('GET', '/api/v1/reference');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(res.body).toContain('data-url="/api/v1/openapi.json"');
  expect(res.body).not.toMatch(/(src|href)="https?:/);
  const assets = [...res.body.matchAll(/(?:src|href)="(\/api\/v1\/reference\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets).toHaveLength(3);
  for (const asset of assets) {
    const plain = await fetch(`${env.t.url}${asset.replace(/&amp;/g, '&')}`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.status, asset).toBe(200);
    expect(plain.headers.get('content-encoding'), asset).toBeNull();
    expect((await plain.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
  }
  const bundle = assets.find((a) => a.includes('swagger-ui-bundle.js'))!;
  const gzipped = await fetch(`${env.t.url}${bundle}`, { headers: { 'accept-encoding': 'gzip' } });
  expect(gzipped.headers.get('content-encoding')).toBe('gzip');
  expect(await gzipped.text()).toContain('SwaggerUIBundle');
  const missing = await env.t.call('GET', '/api/v1/reference/assets/index.html');
  expect(missing.status).toBe(404);
  expect(missing.body.code).toBe('NOT_FOUND');
  const doc = await env.t.call('GET', '/api/v1/openapi.json');
  expect(doc.status).toBe(200);
  expect(Object.keys(doc.body.paths)).toEqual(
    expect.arrayContaining(['/api/v1/activity', '/api/v1/overview', '/api/v1/catalog/categories']),
  );
});
