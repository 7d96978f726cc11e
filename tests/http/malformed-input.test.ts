/**
 * Malformed input is a 4xx `{code, message}` naming the problem, never a 5xx: NUL characters anywhere in a
 * string (PostgreSQL cannot store them), dates PostgreSQL cannot represent, and an oversized body on a
 * kept-alive connection, after which the same connection still serves the next request.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveRest } from '../../server/http/nodeHttp';
import { api, createUser } from '../helpers';

interface RefusalCase {
  path: string;
  method?: string;
  body?: unknown;
  field: string;
}

/** Each case is answered 400 BAD_REQUEST with "<field>: <reason>" in the message. */
async function expectRefused(token: string, cases: RefusalCase[], reason: string) {
  for (const c of cases) {
    const res = await api(c.path, { method: c.method, token, body: c.body });
    expect({ path: c.path, status: res.status, code: res.body.code }).toEqual({
      path: c.path,
      status: 400,
      code: 'BAD_REQUEST',
    });
    expect(res.body.message).toContain(`${c.field}: ${reason}`);
  }
}

describe('NUL characters', () => {
  it('are refused with the field named, in the query string, the body and nested fields', async () => {
    const user = await createUser({ role: 'superadmin' });
    const cases = [
      { path: '/catalog/templates?search=a%00b', field: 'search' },
      { path: '/catalog/templates/a%00b', field: 'slug' },
      { path: '/account/profile', method: 'PUT', body: { name: 'a\u0000b' }, field: 'name' },
      {
        path: '/admin/categories',
        method: 'POST',
        body: { slug: 'nul-cat', name: 'x', description: '\u0000' },
        field: 'description',
      },
      {
        path: '/admin/categories',
        method: 'POST',
        body: { slug: 'nul-cat', name: 'x', ['ke\u0000y']: 1 },
        field: 'ke\\u0000y',
      },
    ];
    await expectRefused(user.token, cases, 'must not contain the NUL character (U+0000)');
    // Nothing was written.
    const listed = await api('/catalog/categories', { token: user.token });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain('nul-cat');
  });
});

describe('unpaired surrogates (no UTF-8 form, so PostgreSQL cannot store them)', () => {
  it('are refused as 400 naming the field, in values and keys, where they used to be a 500', async () => {
    const user = await createUser({ role: 'superadmin' });
    const cases = [
      { path: '/account/profile', method: 'PUT', body: { name: 'a\ud800' }, field: 'name' },
      {
        path: '/admin/categories',
        method: 'POST',
        body: { slug: 'lone-cat', name: 'x', ['k\udc00']: 1 },
        field: 'k\\udc00',
      },
    ];
    await expectRefused(user.token, cases, 'must be valid Unicode (it contains a lone surrogate)');
    // Nothing was written (JSON.stringify shows a lone surrogate as the text \ud800).
    const profile = await api('/account/profile', { token: user.token });
    expect(profile.status).toBe(200);
    expect(JSON.stringify(profile.body)).not.toContain('\\ud800');
  });
});

describe('input nested too deep', () => {
  it('is refused as 400 naming the field at the limit (the check Core runs too, @shared/ops)', async () => {
    const user = await createUser({ role: 'superadmin' });
    const depth = 1_000;
    const res = await api('/account/profile', {
      method: 'PUT',
      token: user.token,
      headers: { 'content-type': 'application/json' },
      rawBody: `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    });
    expect(res).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    expect(res.body.message).toMatch(/name(\.0)+: is nested deeper than 32 levels/);
  });
});

describe('dates PostgreSQL cannot store', () => {
  it('are refused as 400 naming the field, anonymously and as an admin', async () => {
    const admin = await createUser({ role: 'superadmin' });
    for (const since of ['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:00:00-05:00']) {
      const updates = await api(`/catalog/templates/updates?since=${encodeURIComponent(since)}`);
      expect({ since, status: updates.status }).toEqual({ since, status: 400 });
      expect(updates.body).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringContaining('since: must be between 0001-01-01 and 9999-12-31'),
      });
      const audit = await api(`/admin/audit-log?since=${encodeURIComponent(since)}`, { token: admin.token });
      expect({ since, status: audit.status }).toEqual({ since, status: 400 });
    }
    // The earliest and latest storable instants are accepted.
    expect((await api('/catalog/templates/updates?since=0001-01-01T00:00:00Z')).status).toBe(200);
    expect((await api('/admin/audit-log?since=9999-12-31T23:59:59Z', { token: admin.token })).status).toBe(200);
  });
});

describe('an oversized body on a kept-alive connection', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((req, res) => serveRest(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is answered 413, and the next request on the same connection is answered too', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const size = 3 * 1024 * 1024;
    socket.write(
      `POST /api/v1/account/organizations HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(size, 32));
    socket.write('GET /api/v1/catalog/categories HTTP/1.1\r\nHost: hub\r\n\r\n');
    const deadline = Date.now() + 10_000;
    while (!/HTTP\/1\.1 200[\s\S]*"categories"/.test(received) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    expect(statuses).toEqual(['413', '200']);
    expect(received).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });
});
