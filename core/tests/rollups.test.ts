/**
 * Daily rollups (issue 21): after concurrent traffic — machine-token requests with every status class and
 * MCP tool calls with every outcome — the rollups equal a direct count over the raw rows; the overview is
 * built from the rollups alone (the statements it issues never touch the raw tables); days older than the
 * retention are dropped.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { usageDaily } from '../src/db/schema';
import { pruneUsage, utcDay } from '../src/domain/usage';
import { coreWithAdmin } from './helpers';

let env: Awaited<ReturnType<typeof coreWithAdmin>>;
const tokens: Record<'admin' | 'reader' | 'gone', { id: string; token: string }> = {} as never;

beforeAll(async () => {
  env = await coreWithAdmin();
  for (const [name, role] of [
    ['admin', 'admin'],
    ['reader', 'readonly'],
    ['gone', 'readonly'],
  ] as const) {
    const res = await env.t.call('POST', '/api/v1/tokens', { token: env.admin, body: { name, role } });
    tokens[name] = { id: res.body.id, token: res.body.token };
  }
  await env.t.call('DELETE', `/api/v1/tokens/${tokens.gone.id}`, { token: env.admin });
  await env.t.call('PUT', '/api/v1/secrets/api-key', { token: env.admin, body: { value: 'v' } });
});
afterAll(async () => env?.stop());

async function mcpClient(token: string) {
  const client = new Client({ name: 'rollups', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const rows = async (query: ReturnType<typeof sql>) => {
  const result = (await env.t.core.db.execute(query)) as unknown as { rows?: Record<string, unknown>[] } & Record<
    string,
    unknown
  >[];
  return (result.rows ?? result).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)])));
};
const sorted = (list: Record<string, string>[]) => list.map((r) => JSON.stringify(r)).sort();

it('rollups equal a direct count over the raw rows after concurrent traffic', async () => {
  const [adminMcp, readerMcp] = await Promise.all([mcpClient(tokens.admin.token), mcpClient(tokens.reader.token)]);
  const rest = (token: string, method: string, p: string, body?: unknown) =>
    env.t.call(method, p, { token, body }).then((r) => r.status);
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 15; i++) {
    work.push(
      rest(tokens.admin.token, 'GET', '/api/v1/users'), // 200
      rest(tokens.reader.token, 'POST', '/api/v1/users', {
        email: `x${i}@example.test`,
        password: 'long enough password',
        role: 'admin',
      }), // 403
      rest(tokens.reader.token, 'GET', `/api/v1/deployments/00000000-0000-4000-8000-00000000000${i % 10}`), // 404
      rest(tokens.gone.token, 'GET', '/api/v1/users'), // 401 (revoked: audited against it)
      adminMcp.callTool({ name: 'search_templates', arguments: {} }), // ok
      readerMcp.callTool({ name: 'read_secret', arguments: { name: 'api-key' } }), // refused
      adminMcp.callTool({ name: 'get_template', arguments: { slug: `missing-${i}` } }), // error
    );
  }
  const statuses = await Promise.all(work);
  expect(statuses.slice(0, 4)).toEqual([200, 403, 404, 401]);
  await Promise.all([adminMcp.close(), readerMcp.close()]);
  await env.t.core.audit.flush();

  const direct = await rows(sql`
    select to_char(at at time zone 'UTC', 'YYYY-MM-DD') as day, token_id::text as key,
           (status / 100)::text || 'xx' as class, count(*)::text as count
    from machine_token_audit group by 1, 2, 3`);
  const rolled = await rows(
    sql`select day::text as day, key, class, count::text as count from usage_daily where kind = 'machine_token'`,
  );
  expect(sorted(rolled)).toEqual(sorted(direct));
  // Every class happened, for the right tokens (the MCP POSTs are machine-token requests too).
  const byKey = (key: string, cls: string) => Number(rolled.find((r) => r.key === key && r.class === cls)?.count ?? 0);
  expect(byKey(tokens.reader.id, '4xx')).toBeGreaterThanOrEqual(30);
  expect(byKey(tokens.gone.id, '4xx')).toBe(15);
  expect(byKey(tokens.admin.id, '2xx')).toBeGreaterThanOrEqual(45);

  const directCalls = await rows(sql`
    select to_char(at at time zone 'UTC', 'YYYY-MM-DD') as day, tool as key, outcome as class, count(*)::text as count
    from mcp_tool_calls group by 1, 2, 3`);
  const rolledCalls = await rows(
    sql`select day::text as day, key, class, count::text as count from usage_daily where kind = 'mcp_tool'`,
  );
  expect(sorted(rolledCalls)).toEqual(sorted(directCalls));
  expect(sorted(rolledCalls)).toEqual(
    sorted([
      { day: utcDay(new Date()), key: 'search_templates', class: 'ok', count: '15' },
      { day: utcDay(new Date()), key: 'read_secret', class: 'refused', count: '15' },
      { day: utcDay(new Date()), key: 'get_template', class: 'error', count: '15' },
    ]),
  );
});

it('the overview reads the rollups, never the raw tables, and shows the same numbers', async () => {
  await env.t.core.audit.flush();
  const statements: string[] = [];
  const stop = env.t.core.database.onQuery((q) => statements.push(q));
  const res = await env.t.call('GET', '/api/v1/overview', { token: env.admin });
  stop();
  expect(res.status).toBe(200);
  expect(statements.some((q) => q.includes('"usage_daily"'))).toBe(true);
  for (const q of statements) {
    expect(q).not.toMatch(/machine_token_audit|mcp_tool_calls/);
  }

  const o = res.body;
  expect(o.days).toBe(30);
  expect(o.machine_token_requests.days).toHaveLength(30);
  const today = o.machine_token_requests.days.at(-1);
  expect(today.day).toBe(utcDay(new Date()));
  const n = (await rows(sql`select count(*)::text as n from machine_token_audit`))[0]!.n;
  expect(today['2xx'] + today['3xx'] + today['4xx'] + today['5xx']).toBe(Number(n));
  expect(o.machine_token_requests.by_token.find((t: { name: string }) => t.name === 'gone')).toMatchObject({
    total: 15,
    errors: 15,
  });
  expect(o.mcp_calls.by_tool).toEqual(
    expect.arrayContaining([
      { tool: 'read_secret', ok: 0, refused: 15, error: 0, total: 15 },
      { tool: 'get_template', ok: 0, refused: 0, error: 15, total: 15 },
    ]),
  );
  expect(o.mcp_calls.days.at(-1)).toMatchObject({ ok: 15, refused: 15, error: 15 });
  expect(o.hub).toEqual({ configured: false });
  expect(o.catalog).toEqual({ templates: 0 });
  expect(o.deployments).toMatchObject({ total: 0, by_status: { ok: 0, template_missing: 0 } });
  expect(Object.values(o.deployments.by_observed_state)).toEqual(Array(10).fill(0));
  expect(o.recent_activity[0]).toMatchObject({ action: 'secret.create', target: { name: 'api-key' } });

  expect((await env.t.call('GET', '/api/v1/overview?days=401', { token: env.admin })).status).toBe(400);
  expect((await env.t.call('GET', '/api/v1/overview')).status).toBe(401);
});

it('keeps 400 days of rollups', async () => {
  const now = new Date();
  const dayAgo = (d: number) => utcDay(new Date(now.getTime() - d * 86_400_000));
  await env.t.core.db.insert(usageDaily).values([
    { day: dayAgo(401), kind: 'mcp_tool', key: 'old', class: 'ok', count: 1 },
    { day: dayAgo(399), kind: 'mcp_tool', key: 'kept', class: 'ok', count: 1 },
  ]);
  await pruneUsage(env.t.core.db, now);
  const keys = (await rows(sql`select key from usage_daily where key in ('old', 'kept')`)).map((r) => r.key);
  expect(keys).toEqual(['kept']);
});
