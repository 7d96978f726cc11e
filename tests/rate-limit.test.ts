/**
 * Rate limits at the edge (server/api/rateLimit.ts): 429 with Retry-After and the IETF RateLimit
 * headers, per client address for anonymous calls, per credential, and a failed-credential budget that
 * stops a flood of made-up (well-formed) secrets from costing one database look-up each — on REST and
 * /mcp. Counts are shared through the rate_limit_windows table (as a second process would see them).
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { flushRateLimits, resetRateLimitMemory } from '../server/api/rateLimit';
import { closeDatabase, execRows, getDb } from '../server/db/client';
import { issueSecret } from '../server/domain/tokens';
import { handleMcp } from '../server/mcp/proxy';
import { api, createKey, createOrg } from './helpers';

let n = 0;
/** A fresh client address per test (documentation range, as a proxy-less client's socket address). */
let address = '';
const from = () => ({ 'x-forwarded-for': address });

const saved = { ...process.env };
beforeAll(async () => {
  await api('/catalog/categories', { headers: { 'x-forwarded-for': '198.51.100.254' } }); // opens the database
});
beforeEach(async () => {
  address = `198.51.100.${++n}`;
  // Windows are fixed minutes: start each test well inside one, so its counts are not split.
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 100));
}, 30_000);
afterEach(() => {
  for (const name of ['ANONYMOUS', 'CREDENTIAL', 'ADDRESS', 'FAILED_AUTH']) process.env[`HUB_RATE_LIMIT_${name}`] = saved[`HUB_RATE_LIMIT_${name}`];
});

function expectLimited(res: { status: number; body: any; headers: Headers }, policy: string) {
  expect(res.status).toBe(429);
  expect(res.body.code).toBe('TOO_MANY_REQUESTS');
  expect(res.body.message).toMatch(/Retry after \d+ s/);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-policy')).toMatch(new RegExp(`^"${policy}";q=\\d+;w=60$`));
  expect(res.headers.get('ratelimit')).toBe(`"${policy}";r=0;t=${retryAfter}`);
}

it('anonymous calls are limited per client address, and another address is not affected', async () => {
  process.env.HUB_RATE_LIMIT_ANONYMOUS = '5';
  for (let i = 0; i < 5; i++) {
    const ok = await api('/catalog/categories', { headers: from() });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^"anonymous";r=${4 - i};t=\\d+$`));
    expect(ok.headers.get('ratelimit-policy')).toBe('"anonymous";q=5;w=60');
  }
  expectLimited(await api('/catalog/categories', { headers: from() }), 'anonymous');
  const other = { 'x-forwarded-for': '198.51.100.250' };
  expect((await api('/catalog/categories', { headers: other })).status).toBe(200);
});

it('a credential has its own, higher limit, wherever it comes from', async () => {
  process.env.HUB_RATE_LIMIT_ANONYMOUS = '2';
  process.env.HUB_RATE_LIMIT_CREDENTIAL = '4';
  const key = await createKey((await createOrg()).id);
  for (let i = 0; i < 4; i++) {
    address = `198.51.100.${100 + i}`; // a different address each time: the credential is the subject
    expect((await api('/catalog/templates', { token: key.secret, headers: from() })).status).toBe(200);
  }
  expectLimited(await api('/catalog/templates', { token: key.secret, headers: from() }), 'credential');
});

it('the limit holds across processes: counts are shared through the database', async () => {
  process.env.HUB_RATE_LIMIT_ANONYMOUS = '6';
  for (let i = 0; i < 4; i++) expect((await api('/catalog/categories', { headers: from() })).status).toBe(200);
  await flushRateLimits();
  // A second process: no memory of these calls, only the table. Its own first call reads the shared total.
  resetRateLimitMemory();
  const db = await getDb();
  const [row] = await execRows<{ hits: number }>(db, sql`select hits from rate_limit_windows where key = ${`anonymous:${address}`}`);
  expect(row!.hits).toBe(4);
  expect((await api('/catalog/categories', { headers: from() })).status).toBe(200);
  await flushRateLimits();
  expect((await api('/catalog/categories', { headers: from() })).status).toBe(200);
  expectLimited(await api('/catalog/categories', { headers: from() }), 'anonymous');
});

/** Index and table scans of instance_keys and personal_access_tokens so far: one per secret look-up. */
async function secretLookups(): Promise<number> {
  // postgres.js: backends flush their statistics when they exit; PGlite: force this backend's flush.
  if (process.env.DATABASE_URL) await closeDatabase();
  const db = await getDb();
  await execRows(db, sql`select pg_stat_force_next_flush()`);
  await execRows(db, sql`select 1`);
  const [row] = await execRows<{ n: string }>(
    db,
    sql`select coalesce(sum(coalesce(idx_scan, 0) + coalesce(seq_scan, 0)), 0)::text as n from pg_stat_user_tables
         where relname in ('instance_keys', 'personal_access_tokens')`,
  );
  return Number(row!.n);
}

it('a flood of made-up instance keys and PATs costs at most the failed-credential budget in look-ups', async () => {
  process.env.HUB_RATE_LIMIT_FAILED_AUTH = '10';
  const before = await secretLookups();
  const statuses: number[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await api('/catalog/templates', { token: issueSecret('svh_').secret, headers: from() });
    statuses.push(res.status);
    if (res.status === 429) expectLimited(res, 'failed_auth');
  }
  for (let i = 0; i < 100; i++) {
    const res = await handleMcp(
      new Request('http://hub.test/mcp', {
        method: 'POST',
        headers: { ...from(), authorization: `Bearer ${issueSecret('svp_').secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }),
    );
    statuses.push(res.status);
    if (res.status === 429) expectLimited({ status: res.status, body: await res.json(), headers: res.headers }, 'failed_auth');
  }
  expect(statuses.filter((s) => s === 401)).toHaveLength(10);
  expect(statuses.filter((s) => s === 429)).toHaveLength(290);
  const lookups = (await secretLookups()) - before;
  expect(lookups).toBeGreaterThanOrEqual(10);
  expect(lookups).toBeLessThanOrEqual(12);
  // The address's budget is spent for credentials, not for the valid key of someone else elsewhere.
  const key = await createKey((await createOrg()).id);
  address = '198.51.100.251';
  expect((await api('/catalog/templates', { token: key.secret, headers: from() })).status).toBe(200);
});
