/**
 * One error shape on every transport of Core (REST, /mcp, the probes and fallbacks), the Hub's too:
 * {code (tRPC's names), message, request_id, issues?}, and X-Request-Id on every answer.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreWithAdmin, expectErrorShape, type TestCore } from './helpers';

let t: TestCore;
let admin: string;
let stop: () => Promise<void>;
let machine: string;

beforeAll(async () => {
  ({ t, admin, stop } = await coreWithAdmin());
  machine = (await t.call('POST', '/api/v1/tokens', { token: admin, body: { name: 'mcp', role: 'readonly' } })).body
    .token;
});
afterAll(() => stop?.());

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('X-Request-Id', () => {
  it('is on every answer: the caller’s own when sane, a fresh one otherwise', async () => {
    const ok = await t.call('GET', '/api/v1/auth/me', { token: admin });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const health = await t.call('GET', '/healthz', { headers: { 'x-request-id': 'lb-1234567890' } });
    expect(health.headers.get('x-request-id')).toBe('lb-1234567890');
    const insane = await t.call('GET', '/healthz', { headers: { 'x-request-id': 'a b<script>' } });
    expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const tooShort = await t.call('GET', '/healthz', { headers: { 'x-request-id': 'abc' } });
    expect(tooShort.headers.get('x-request-id')).not.toBe('abc');
  });

  it('an error body carries the caller’s request id', async () => {
    const res = await t.call('GET', '/api/v1/users', { headers: { 'x-request-id': 'trace-abcdef12' } });
    expect(res.status).toBe(401);
    expectErrorShape(res);
    expect(res.body).toMatchObject({ code: 'UNAUTHORIZED', request_id: 'trace-abcdef12' });
  });
});

describe('REST errors', () => {
  it('answer every failure in the one shape with tRPC’s code names', async () => {
    const cases: [string, string, { token?: string; body?: unknown }, number, string][] = [
      ['GET', '/api/v1/no-such-route', { token: admin }, 404, 'NOT_FOUND'],
      ['GET', '/api/v1/users', {}, 401, 'UNAUTHORIZED'],
      ['GET', '/api/v1/users/00000000-0000-4000-8000-000000000000', { token: admin }, 404, 'NOT_FOUND'],
      ['POST', '/api/v1/users', { token: admin, body: { email: 'not an email', role: 'admin' } }, 400, 'BAD_REQUEST'],
      ['POST', '/api/v1/tokens', { token: machine, body: { name: 'x', role: 'admin' } }, 403, 'FORBIDDEN'],
    ];
    for (const [method, path, opts, status, code] of cases) {
      const res = await t.call(method, path, opts);
      expect(res.status, `${method} ${path}`).toBe(status);
      expectErrorShape(res, `${method} ${path}`);
      expect(res.body.code, `${method} ${path}`).toBe(code);
    }
  });

  it('names the offending fields in issues on a 400', async () => {
    const res = await t.call('POST', '/api/v1/users', {
      token: admin,
      body: { email: 'not an email', role: 'admin', extra: 1 },
    });
    expect(res.status).toBe(400);
    expectErrorShape(res);
    expect(res.body.issues.length).toBeGreaterThan(0);
    expect(res.body.issues[0]).toMatchObject({ path: expect.any(Array), message: expect.any(String) });
  });

  it('a body over the limit is 413 PAYLOAD_TOO_LARGE in the same shape', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(300 * 1024) });
    const { status, headers, text } = await new Promise<{
      status: number;
      headers: http.IncomingHttpHeaders;
      text: string;
    }>((resolve, reject) => {
      const req = http.request(`${t.url}/api/v1/secrets/x`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${admin}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(413);
    const parsed = JSON.parse(text);
    expect(parsed).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringMatching(/too large/),
      request_id: headers['x-request-id'],
    });
  });
});

describe('/mcp errors', () => {
  it('refusals come from the one mapper, in the one shape', async () => {
    const none = await t.call('POST', '/mcp', { body: initialize, headers: MCP_HEADERS });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectErrorShape(none);
    expect(none.body.code).toBe('UNAUTHORIZED');

    const garbage = await t.call('POST', '/mcp', {
      token: 'svm_garbage',
      body: initialize,
      headers: { ...MCP_HEADERS, 'x-request-id': 'mcp-trace-0001' },
    });
    expect(garbage.status).toBe(401);
    expectErrorShape(garbage);
    expect(garbage.body.request_id).toBe('mcp-trace-0001');

    const get = await t.call('GET', '/mcp', { token: machine, headers: MCP_HEADERS });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expectErrorShape(get);
    expect(get.body.code).toBe('METHOD_NOT_SUPPORTED');
  });

  it('a JSON-RPC answer carries X-Request-Id too', async () => {
    const res = await t.call('POST', '/mcp', {
      token: machine,
      body: initialize,
      headers: { ...MCP_HEADERS, 'x-request-id': 'mcp-trace-0002' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.serverInfo.name).toBe('core');
    expect(res.headers.get('x-request-id')).toBe('mcp-trace-0002');
  });
});
