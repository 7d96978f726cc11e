/**
 * One error shape on every transport of the Hub (Core's too): {code (tRPC's names), message, request_id,
 * reason?, issues?}; X-Request-Id on every answer, the id in every error body (tRPC: in the error's data).
 * REST through its Fetch adapter and through the production edge (server/http/edge.ts, the Node fast path),
 * tRPC through the edge's fallback as Next.js serves it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as trpcGet } from '../../app/api/trpc/[trpc]/route';
import { errorBody, toHttpError, trpcErrorHeaders } from '../../server/api/errors';
import { getDatabase } from '../../server/db/client';
import { createEdge } from '../../server/http/edge';
import { withRequestContext } from '../../server/log';
import { api, createUser } from '../helpers';

const ID = /^[A-Za-z0-9._:-]{8,128}$/;

function expectErrorShape(res: { body: any; headers: Headers }, label = '') {
  const requestId = res.headers.get('x-request-id');
  expect(requestId, label).toMatch(ID);
  expect(res.body, label).toMatchObject({
    code: expect.stringMatching(/^[A-Z_]+$/),
    message: expect.any(String),
    request_id: requestId,
  });
  const extra = Object.keys(res.body).filter((k) => !['code', 'message', 'request_id', 'reason', 'issues'].includes(k));
  expect(extra, label).toEqual([]);
}

describe('REST (Fetch adapter)', () => {
  it('answers errors in the one shape, with the request id of X-Request-Id', async () => {
    const user = await createUser();
    const cases: [string, Parameters<typeof api>[1], number, string][] = [
      ['/no-such-route', {}, 404, 'NOT_FOUND'],
      ['/account/tokens', {}, 401, 'UNAUTHORIZED'],
      ['/admin/users', { token: user.token }, 403, 'FORBIDDEN'],
      ['/catalog/templates?page=0', {}, 400, 'BAD_REQUEST'],
    ];
    for (const [path, opts, status, code] of cases) {
      const res = await api(path, opts);
      expect(res.status, path).toBe(status);
      expectErrorShape(res, path);
      expect(res.body.code, path).toBe(code);
    }
  });

  it('words a validation failure as Core does: the fields named, unknown ones by name, issues attached', async () => {
    const admin = await createUser({ role: 'superadmin' });
    const body = { name: '', slug: 'words-check', bogus_field: 1 };
    const res = await api('/admin/categories', { method: 'POST', token: admin.token, body });
    expect(res.status).toBe(400);
    expectErrorShape(res);
    expect(res.body.message).toMatch(/^Invalid input: /);
    expect(res.body.message).toContain('name: ');
    expect(res.body.message).toContain('unknown field: bogus_field');
    expect(res.body.issues.map((i: { path: unknown[] }) => i.path[0] ?? '')).toContain('name');
  });

  it('keeps a sane incoming X-Request-Id and replaces an insane one', async () => {
    const kept = await api('/account/tokens', { headers: { 'x-request-id': 'lb.trace-0001' } });
    expect(kept.headers.get('x-request-id')).toBe('lb.trace-0001');
    expect(kept.body.request_id).toBe('lb.trace-0001');
    const replaced = await api('/account/tokens', { headers: { 'x-request-id': 'no spaces <allowed>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(replaced.body.request_id).toBe(replaced.headers.get('x-request-id'));
    const ok = await api('/catalog/templates');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toMatch(ID);
  });
});

describe('through the production edge', () => {
  let base: string;
  let server: http.Server;

  beforeAll(async () => {
    const edge = createEdge(await getDatabase(), {
      handle: (req, res) => {
        // What Next.js does for /api/trpc in production: the tRPC Fetch handler behind the edge.
        if (req.url?.startsWith('/api/trpc/')) {
          const headers = Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string');
          return void trpcGet(new Request(`http://hub.test${req.url}`, { method: req.method, headers })).then(
            async (answer) => {
              res.writeHead(answer.status, Object.fromEntries(answer.headers));
              res.end(Buffer.from(await answer.arrayBuffer()));
            },
          );
        }
        res.writeHead(404).end();
      },
    });
    server = edge.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function get(path: string, headers: Record<string, string> = {}) {
    const res = await fetch(base + path, { headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }

  it('REST: every answer carries X-Request-Id, every error body the same id', async () => {
    const ok = await get('/healthz');
    expect(ok.headers.get('x-request-id')).toMatch(ID);
    const refused = await get('/api/v1/account/tokens', { 'x-request-id': 'edge-trace-0001' });
    expect(refused.status).toBe(401);
    expectErrorShape(refused);
    expect(refused.body.request_id).toBe('edge-trace-0001');
  });

  it('tRPC: the error carries the request id in its data, the answer X-Request-Id', async () => {
    const res = await get('/api/trpc/tokens.list', {
      authorization: 'Bearer svp_not_a_token',
      'x-request-id': 'edge-trace-0002',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toBe('edge-trace-0002');
    expect(res.body.error.message).toEqual(expect.any(String));
    expect(res.body.error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, request_id: 'edge-trace-0002' });
    expect(res.body.error.data.stack).toBeUndefined();

    const anonymous = await get('/api/trpc/tokens.list');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.data.request_id).toBe(anonymous.headers.get('x-request-id'));
  });
});

describe('a database outage', () => {
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  it('is 503 SERVICE_UNAVAILABLE with Retry-After, in the one shape, on REST and tRPC alike', () => {
    withRequestContext({ requestId: 'outage-trace-1' }, () => {
      const e = toHttpError(refused());
      expect(e).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '5' } });
      expect(errorBody(e)).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.any(String),
        request_id: 'outage-trace-1',
      });
      const wrapped = new TRPCError({ code: 'SERVICE_UNAVAILABLE', cause: refused() });
      expect(trpcErrorHeaders({ errors: [wrapped] }).headers).toMatchObject({ 'retry-after': '5' });
    });
  });
});
