/**
 * The transport edge: compressed cached answers, the Node fast path of the production server (the same
 * dispatcher without Fetch objects), and the one error mapper.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toHttpError } from '../../server/api/errors';
import { handleRest } from '../../server/api/rest';
import { ServiceError } from '../../server/domain/errors';
import { serveRest } from '../../server/http/nodeHttp';
import { BASE, createCategory, createTemplate } from '../helpers';

const LIST = '/api/v1/catalog/templates?category=edge-compress';

async function raw(path: string, headers: Record<string, string> = {}) {
  const res = await handleRest(new Request(`${BASE}${path}`, { headers }));
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('compressed cached answers', () => {
  beforeAll(async () => {
    const cat = await createCategory({ slug: 'edge-compress' });
    for (let i = 0; i < 30; i++) {
      await createTemplate({
        categoryId: cat.id,
        slug: `edge-compress-${i}`,
        documentation: `# Template ${i}\n\n${'Run it with care and read the notes. '.repeat(20)}`,
      });
    }
  });

  it('serves br or gzip as accepted, with Vary, Content-Length and the same JSON as identity', async () => {
    const identity = await raw(LIST);
    expect(identity.status).toBe(200);
    expect(identity.headers.get('content-encoding')).toBeNull();
    expect(Number(identity.headers.get('content-length'))).toBe(identity.bytes.byteLength);
    expect(identity.headers.get('vary')).toBe('Authorization, Accept-Encoding');

    const br = await raw(LIST, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(Number(br.headers.get('content-length'))).toBe(br.bytes.byteLength);
    expect(brotliDecompressSync(br.bytes).equals(identity.bytes)).toBe(true);
    expect(br.bytes.byteLength).toBeLessThan(identity.bytes.byteLength * 0.15);

    const gzip = await raw(LIST, { 'accept-encoding': 'gzip' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(gzip.bytes).equals(identity.bytes)).toBe(true);

    // q=0 refuses an encoding; the same representation comes back byte for byte (stored once).
    const refused = await raw(LIST, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers.get('content-encoding')).toBeNull();
    expect((await raw(LIST, { 'accept-encoding': 'br' })).bytes.equals(br.bytes)).toBe(true);
  });

  it('one ETag per representation; any of them revalidates to 304', async () => {
    const identity = await raw(LIST);
    const br = await raw(LIST, { 'accept-encoding': 'br' });
    expect(br.headers.get('etag')).not.toBe(identity.headers.get('etag'));
    const again = await raw(LIST, { 'accept-encoding': 'br', 'if-none-match': br.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.bytes.byteLength).toBe(0);
    expect(again.headers.get('etag')).toBe(br.headers.get('etag'));
    expect((await raw(LIST, { 'if-none-match': br.headers.get('etag')! })).status).toBe(304);
  });
});

describe('the production server’s REST path (Node request straight into the dispatcher)', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((req, res) => serveRest(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function request(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer) {
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('answers a cached list compressed, and errors as {code, message}', async () => {
    const list = await request('GET', LIST, { 'accept-encoding': 'gzip' });
    expect(list.status).toBe(200);
    expect(list.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(list.bytes).toString()).templates).toHaveLength(30);

    const head = await request('HEAD', LIST, { 'accept-encoding': 'gzip' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(list.headers['content-length']);
    expect(head.bytes.byteLength).toBe(0);

    const missing = await request('GET', '/api/v1/no-such-endpoint');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.bytes.toString())).toMatchObject({ code: 'NOT_FOUND' });

    const text = await request(
      'POST',
      '/api/v1/account/organizations',
      { 'content-type': 'text/plain' },
      Buffer.from('{}'),
    );
    expect(text.status).toBe(415);
    expect(JSON.parse(text.bytes.toString())).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });

    const size = 3 * 1024 * 1024;
    const big = await request(
      'DELETE',
      '/api/v1/admin/templates',
      { 'content-type': 'application/json', 'content-length': String(size) },
      Buffer.alloc(size, 32),
    );
    expect(big.status).toBe(413);
    expect(big.headers.connection).toBe('close');
    expect(JSON.parse(big.bytes.toString())).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // Without Content-Length (chunked): reading stops at the limit.
    const streamed = await request(
      'POST',
      '/api/v1/account/organizations',
      { 'content-type': 'application/json' },
      Buffer.alloc(size, 32),
    );
    expect(streamed.status).toBe(413);
  });
});

describe('input reading', () => {
  it('takes query parameters as own properties: prototype names are ordinary unknown parameters', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      const res = await handleRest(new Request(`${BASE}/api/v1/catalog/templates?${name}=1&${name}=2&limit=1`));
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      expect((await res.json()).pagination.limit).toBe(1);
    }
  });
});

describe('the error mapper', () => {
  it('maps each domain code through the one status table', () => {
    const cases: [ServiceError['code'], number, string][] = [
      ['invalid', 400, 'BAD_REQUEST'],
      ['unauthenticated', 401, 'UNAUTHORIZED'],
      ['forbidden', 403, 'FORBIDDEN'],
      ['not_found', 404, 'NOT_FOUND'],
      ['conflict', 409, 'CONFLICT'],
      ['too_large', 413, 'PAYLOAD_TOO_LARGE'],
      ['rate_limited', 429, 'TOO_MANY_REQUESTS'],
    ];
    for (const [code, status, name] of cases) {
      expect(toHttpError(new ServiceError(code, `x ${code}`))).toMatchObject({
        status,
        code: name,
        message: `x ${code}`,
      });
    }
    expect(toHttpError(new ServiceError('rate_limited', 'slow down', { retryAfterSeconds: 7 })).headers).toEqual({
      'retry-after': '7',
    });
  });

  it('names the fields of invalid input, and never shows what an unexpected failure said', () => {
    const parsed = z.object({ page: z.number() }).safeParse({ page: 'x' });
    expect(toHttpError(parsed.error)).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^Invalid input: page: /),
    });
    const failure = toHttpError(new Error('relation "users" does not exist'));
    expect(failure).toMatchObject({ status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
  });
});
