/**
 * Bad input of every shape gets a 4xx `{code, message}`, never a 5xx, and writes nothing.
 */
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { coreWithAdmin, type TestCore } from './helpers';

let t: TestCore;
let admin: string;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ t, admin, stop } = await coreWithAdmin());
});
afterAll(() => stop?.());

const WRITES: [string, string][] = [
  ['POST', '/api/v1/auth/login'],
  ['POST', '/api/v1/auth/refresh'],
  ['POST', '/api/v1/auth/logout'],
  ['POST', '/api/v1/users'],
  ['PUT', '/api/v1/users/00000000-0000-0000-0000-000000000000'],
  ['POST', '/api/v1/tokens'],
  ['PUT', '/api/v1/secrets/name'],
  ['PUT', '/api/v1/settings/oidc'],
];

const BODIES: [string, string, Record<string, string>][] = [
  ['empty', '', { 'content-type': 'application/json' }],
  ['malformed JSON', '{"a":', { 'content-type': 'application/json' }],
  ['null', 'null', { 'content-type': 'application/json' }],
  ['array', '[1,2]', { 'content-type': 'application/json' }],
  ['string', '"x"', { 'content-type': 'application/json' }],
  ['empty object', '{}', { 'content-type': 'application/json' }],
  ['wrong types', '{"username":1,"password":[],"refresh_token":{},"email":true,"role":7,"name":null,"value":5,"issuer":9,"client_id":false}', { 'content-type': 'application/json' }],
  ['form encoded', 'a=b', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['no content type', '{"a":1}', {}],
  ['unicode junk', '{"name":"\u0000\ud800","value":"\u0000"}', { 'content-type': 'application/json' }],
];

it('every write endpoint answers every malformed body with a 4xx {code, message}', async () => {
  const before = JSON.stringify([
    (await t.call('GET', '/api/v1/users', { token: admin })).body.pagination.total,
    (await t.call('GET', '/api/v1/tokens', { token: admin })).body.pagination.total,
    (await t.call('GET', '/api/v1/secrets', { token: admin })).body.secrets.length,
  ]);
  const failures: string[] = [];
  for (const [method, path] of WRITES) {
    for (const [label, body, headers] of BODIES) {
      const res = await t.call(method, path, { token: admin, body: body === '' ? undefined : body, headers });
      const shaped = res.body && typeof res.body.code === 'string' && typeof res.body.message === 'string';
      if (res.status < 400 || res.status >= 500 || !shaped) failures.push(`${method} ${path} ${label}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 120)}`);
    }
  }
  expect(failures).toEqual([]);
  for (const [method, path] of WRITES) expect(await tooLarge(method, path), `${method} ${path}`).toBe(413);
  for (const [method, path] of WRITES) expect(await tooLarge(method, path, { chunked: true }), `${method} ${path} (chunked)`).toBe(413);
  const after = JSON.stringify([
    (await t.call('GET', '/api/v1/users', { token: admin })).body.pagination.total,
    (await t.call('GET', '/api/v1/tokens', { token: admin })).body.pagination.total,
    (await t.call('GET', '/api/v1/secrets', { token: admin })).body.secrets.length,
  ]);
  expect(after).toBe(before);
});

it('odd paths and queries are 4xx too', async () => {
  const cases: [string, string][] = [
    ['GET', '/api/v1/users/not-a-uuid'],
    ['GET', '/api/v1/users?page=abc'],
    ['GET', '/api/v1/users?limit=-1'],
    ['GET', '/api/v1/tokens/%E0%A4%A/audit'],
    ['GET', `/api/v1/secrets/${'%00'}`],
    ['DELETE', '/api/v1/tokens/00000000-0000-0000-0000-000000000000'],
    ['PATCH', '/api/v1/users'],
    ['GET', '/api/v2/anything'],
  ];
  for (const [method, path] of cases) {
    const res = await t.call(method, path, { token: admin });
    expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
    expect(res.status, `${method} ${path}`).toBeLessThan(500);
    expect(res.body, `${method} ${path}`).toEqual({ code: expect.any(String), message: expect.any(String) });
  }
});

/**
 * A 300 KiB body on a connection of its own, with its Content-Length (Core answers 413 at once and closes
 * the connection after draining) or `chunked`, sent in 16 KiB pieces without a length (Core counts as it reads).
 */
function tooLarge(method: string, path: string, opts: { chunked?: boolean } = {}): Promise<number> {
  const body = JSON.stringify({ value: 'x'.repeat(300 * 1024) });
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${admin}` };
    if (!opts.chunked) headers['content-length'] = String(Buffer.byteLength(body));
    const req = http.request(t.url + path, { method, headers, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    if (!opts.chunked) return void req.end(body);
    for (let i = 0; i < body.length; i += 16 * 1024) req.write(body.slice(i, i + 16 * 1024));
    req.end();
  });
}
