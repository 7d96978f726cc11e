/**
 * Bad input of every shape gets a 4xx `{code, message}`, never a 5xx, and writes nothing.
 */
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { coreWithAdmin, expectErrorShape, type TestCore } from './helpers';

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
  [
    'wrong types',
    '{"username":1,"password":[],"refresh_token":{},"email":true,"role":7,"name":null,"value":5,"issuer":9,"client_id":false}',
    { 'content-type': 'application/json' },
  ],
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
      const shaped =
        res.body &&
        /^[A-Z_]+$/.test(res.body.code) &&
        typeof res.body.message === 'string' &&
        res.body.request_id === res.headers.get('x-request-id');
      if (res.status < 400 || res.status >= 500 || !shaped)
        failures.push(`${method} ${path} ${label}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 120)}`);
    }
  }
  expect(failures).toEqual([]);
  for (const [method, path] of WRITES) expect(await tooLarge(method, path), `${method} ${path}`).toBe(413);
  for (const [method, path] of WRITES)
    expect(await tooLarge(method, path, { chunked: true }), `${method} ${path} (chunked)`).toBe(413);
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
    expectErrorShape(res, `${method} ${path}`);
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

/**
 * The fuzz over every route of the OpenAPI document: each declared body field, query parameter and path
 * parameter in turn gets a NUL character, a lone surrogate and a 10,000-character string. The first two are
 * 400 naming the field (PostgreSQL cannot store them); nothing is ever a 5xx.
 */
it('every route answers NUL, lone surrogates and 10,000-character strings in every field with a 4xx, never a 5xx', async () => {
  const doc = (await t.call('GET', '/api/v1/openapi.json')).body;
  const schemas = doc.components.schemas as Record<string, any>;
  const resolve = (s: any): any => (s?.$ref ? resolve(schemas[s.$ref.split('/').pop()]) : s);
  const STRINGS: [string, string, boolean][] = [
    ['NUL', 'a\u0000b', true],
    ['lone surrogate', 'a\ud800b', true],
    ['10,000 characters', 'x'.repeat(10_000), false],
  ];
  const failures: string[] = [];
  let cases = 0;
  const check = async (label: string, method: string, url: string, body: unknown, field: string, mustName: boolean) => {
    cases++;
    const res = await t.call(method, url, { token: admin, body });
    const shaped = res.status < 400 || (res.body && typeof res.body.message === 'string');
    if (res.status >= 500 || !shaped)
      failures.push(`${label}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 160)}`);
    else if (mustName && (res.status !== 400 || !String(res.body.message).includes(field)))
      failures.push(`${label}: ${res.status} does not name ${field}: ${res.body?.message}`);
  };
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [m, op] of Object.entries(ops)) {
      const method = m.toUpperCase();
      if (p === '/api/v1/auth/logout' || (method === 'DELETE' && p === '/api/v1/settings/hub')) continue;
      const params = (op.parameters ?? []) as { name: string; in: string }[];
      const fill = (override?: [string, string]) =>
        p.replace(/\{(\w+)\}/g, (_, name: string) =>
          override?.[0] === name ? override[1] : name === 'id' ? '00000000-0000-4000-8000-000000000000' : 'fuzz',
        );
      const bodySchema = resolve(op.requestBody?.content?.['application/json']?.schema);
      const fields = Object.keys(bodySchema?.properties ?? {});
      for (const [kind, value, mustName] of STRINGS) {
        for (const field of fields) {
          await check(`${method} ${p} body.${field} ${kind}`, method, fill(), { [field]: value }, field, mustName);
        }
        for (const param of params) {
          if (param.in === 'query') {
            const q = kind === 'lone surrogate' ? '%ED%A0%80' : encodeURIComponent(value);
            await check(
              `${method} ${p}?${param.name} ${kind}`,
              method,
              `${fill()}?${param.name}=${q}`,
              undefined,
              param.name,
              kind === 'NUL',
            );
          } else if (param.in === 'path') {
            const v = kind === 'lone surrogate' ? '%ED%A0%80' : encodeURIComponent(value);
            await check(
              `${method} ${p} path ${param.name} ${kind}`,
              method,
              fill([param.name, v]),
              undefined,
              'path',
              kind === 'NUL',
            );
          }
        }
      }
    }
  }
  expect(cases).toBeGreaterThan(100);
  expect(failures).toEqual([]);
}, 120_000);

it('MCP tools answer NUL and lone surrogates in their arguments with an error naming the argument', async () => {
  const token = (await t.call('POST', '/api/v1/tokens', { token: admin, body: { name: 'fuzz-mcp', role: 'admin' } }))
    .body.token as string;
  const client = new Client({ name: 'fuzz', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  for (const [tool, args, field] of [
    ['search_templates', { query: 'a\u0000b' }, 'query'],
    ['get_template', { slug: 'a\ud800' }, 'slug'],
    ['read_secret', { name: '\u0000' }, 'name'],
    ['create_deployment', { name: 'x', template_slug: 'y', env: { TZ: 'a\u0000' } }, 'env.TZ'],
  ] as const) {
    const result = (await client.callTool({ name: tool, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(result.isError, tool).toBe(true);
    expect(result.content[0]!.text, tool).toMatch(new RegExp(`^${field.replace('.', '\\.')}: must`));
  }
  await client.close();
});

it('a deeply nested body (240 KB of brackets) is a 400 naming the depth, not a 500', async () => {
  const depth = 120_000;
  for (const [method, path] of WRITES) {
    const res = await t.call(method, path, {
      token: admin,
      body: `{"username":${'['.repeat(depth)}${']'.repeat(depth)},"password":"x"}`,
    });
    expect(res.status, `${method} ${path}`).toBe(400);
    expectErrorShape(res);
    expect(res.body.message).toMatch(/^username(\.0)+: is nested deeper than 32 levels$/);
  }
});

it('a JSON body sent as another JSON media type (+json) is checked as well: NUL is a 400, not a 500', async () => {
  // The routes parse application/<anything>+json as JSON (Hono's validator), so the check must see those bodies too.
  for (const contentType of ['application/merge-patch+json', 'application/vnd.core+json; charset=utf-8']) {
    const user = await t.call('POST', '/api/v1/users', {
      token: admin,
      headers: { 'content-type': contentType },
      body: { email: 'nul@example.test', name: 'a\u0000b', password: 'a long enough password', role: 'readonly' },
    });
    expect(user.status, contentType).toBe(400);
    expectErrorShape(user);
    expect(user.body.message).toBe('name: must not contain the NUL character (U+0000)');
    const secret = await t.call('PUT', '/api/v1/secrets/plus-json', {
      token: admin,
      headers: { 'content-type': contentType },
      body: { value: 'v', description: 'd\u0000' },
    });
    expect(secret.status, contentType).toBe(400);
    expect(secret.body.message).toBe('description: must not contain the NUL character (U+0000)');
  }
});
