/**
 * Rate limits at the edge (server/api/rateLimit.ts): 429 with Retry-After and the IETF RateLimit
 * headers, per client address for anonymous calls, per credential, and a failed-credential budget that
 * stops a flood of made-up (well-formed) secrets from costing one database look-up each — on REST and
 * /mcp. Counts are shared through the rate_limit_windows table (as a second process would see them).
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { GET as trpcGet } from '../../app/api/trpc/[trpc]/route';
import { addressBucket } from '@shared/ops';
import { flushRateLimits, resetRateLimitMemory } from '../../server/api/rateLimit';
import { execRows, getDb } from '../../server/db/client';
import { observeStatements } from '../../server/db/statements';
import { issueSecret } from '@shared/tokens';
import { startHub } from '../mcp-harness';
import { api, createKey, createOrg } from '../helpers';
import { reloadConfig } from '../../server/config';

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
  for (const name of ['ANONYMOUS', 'CREDENTIAL', 'ADDRESS', 'FAILED_AUTH'])
    process.env[`HUB_RATE_LIMIT_${name}`] = saved[`HUB_RATE_LIMIT_${name}`];
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
  reloadConfig();
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
  reloadConfig();
  const key = await createKey((await createOrg()).id);
  for (let i = 0; i < 4; i++) {
    address = `198.51.100.${100 + i}`; // a different address each time: the credential is the subject
    expect((await api('/catalog/templates', { token: key.secret, headers: from() })).status).toBe(200);
  }
  expectLimited(await api('/catalog/templates', { token: key.secret, headers: from() }), 'credential');
});

it('the limit holds across processes: counts are shared through the database', async () => {
  process.env.HUB_RATE_LIMIT_ANONYMOUS = '6';
  reloadConfig();
  for (let i = 0; i < 4; i++) expect((await api('/catalog/categories', { headers: from() })).status).toBe(200);
  await flushRateLimits();
  // A second process: no memory of these calls, only the table. Its own first call reads the shared total.
  resetRateLimitMemory();
  const db = await getDb();
  const [row] = await execRows<{ hits: number }>(
    db,
    sql`select hits from rate_limit_windows where key = ${`anonymous:${address}`}`,
  );
  expect(row!.hits).toBe(4);
  expect((await api('/catalog/categories', { headers: from() })).status).toBe(200);
  await flushRateLimits();
  expect((await api('/catalog/categories', { headers: from() })).status).toBe(200);
  expectLimited(await api('/catalog/categories', { headers: from() }), 'anonymous');
});

/** Index and table scans of instance_keys and personal_access_tokens so far: one per secret look-up. */
/**
 * Counts the credential look-ups (an instance key's or a personal access token's row read by its hash) issued
 * from now on; stop() ends the count. Statements, not table statistics: those also count foreign-key checks of
 * unrelated writes.
 */
function countSecretLookups() {
  let n = 0;
  const stop = observeStatements((statement) => {
    if (/"(key_hash|token_hash)" = (any\()?\$1/.test(statement)) n++;
  });
  return () => (stop(), n);
}

it('a flood of made-up instance keys and PATs costs at most the failed-credential budget in look-ups', async () => {
  process.env.HUB_RATE_LIMIT_FAILED_AUTH = '10';
  reloadConfig();
  const stopCounting = countSecretLookups();
  const statuses: number[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await api('/catalog/templates', { token: issueSecret('svh_').secret, headers: from() });
    statuses.push(res.status);
    if (res.status === 429) expectLimited(res, 'failed_auth');
  }
  // /mcp on a real server: the test's address reaches it through a trusted (loopback) proxy hop.
  process.env.HUB_TRUSTED_PROXIES = '127.0.0.1';
  reloadConfig();
  const hub = await startHub();
  try {
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${hub.url}/mcp`, {
        method: 'POST',
        headers: {
          ...from(),
          authorization: `Bearer ${issueSecret('svp_').secret}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      statuses.push(res.status);
      const body = await res.json();
      if (res.status === 429) expectLimited({ status: res.status, body, headers: res.headers }, 'failed_auth');
    }
  } finally {
    await hub.close();
    delete process.env.HUB_TRUSTED_PROXIES;
    reloadConfig();
  }
  expect(statuses.filter((s) => s === 401)).toHaveLength(10);
  expect(statuses.filter((s) => s === 429)).toHaveLength(290);
  const lookups = stopCounting();
  expect(lookups).toBeGreaterThanOrEqual(10);
  expect(lookups).toBeLessThanOrEqual(12);
  // The address's budget is spent for credentials, not for the valid key of someone else elsewhere.
  const key = await createKey((await createOrg()).id);
  address = '198.51.100.251';
  expect((await api('/catalog/templates', { token: key.secret, headers: from() })).status).toBe(200);
});

async function trpc(path: string, headers: Record<string, string>) {
  const res = await trpcGet(new Request(`http://hub.test/api/trpc/${path}`, { headers }));
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

it('/api/trpc has the same limits: anonymous per address, and the failed-credential budget', async () => {
  process.env.HUB_RATE_LIMIT_ANONYMOUS = '3';
  reloadConfig();
  for (let i = 0; i < 3; i++) expect((await trpc('tokens.list', from())).status).toBe(401); // counted, then refused
  const limited = await trpc('tokens.list', from());
  expect(limited.status).toBe(429);
  expect(limited.body.error.data).toMatchObject({
    code: 'TOO_MANY_REQUESTS',
    request_id: limited.headers.get('x-request-id'),
  });
  expect(limited.body.error.message).toMatch(/Retry after \d+ s/);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(limited.headers.get('ratelimit')).toMatch(/^"anonymous";r=0;t=\d+$/);
  // REST counts in the same bucket.
  expect((await api('/catalog/categories', { headers: from() })).status).toBe(429);

  address = `198.51.100.${++n}`;
  process.env.HUB_RATE_LIMIT_FAILED_AUTH = '2';
  reloadConfig();
  const made_up = () => ({ ...from(), authorization: `Bearer ${issueSecret('svh_').secret}` });
  for (let i = 0; i < 2; i++) expect((await trpc('tokens.list', made_up())).status).toBe(401);
  const refused = await trpc('tokens.list', made_up());
  expect(refused.status).toBe(429);
  expect(refused.headers.get('ratelimit')).toMatch(/^"failed_auth";r=0;t=\d+$/);
});

it('IPv6 clients are counted per /64 on every path; another /64 is not affected', async () => {
  expect(addressBucket('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
  expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
  expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  expect(addressBucket('198.51.100.7')).toBe('198.51.100.7');
  expect(addressBucket('unknown')).toBe('unknown');

  process.env.HUB_RATE_LIMIT_ANONYMOUS = '4';
  reloadConfig();
  const net = `2001:db8:${(++n).toString(16)}:1`;
  const v6 = (host: string) => ({ 'x-forwarded-for': `${net}:${host}` });
  expect((await api('/catalog/categories', { headers: v6('0:0:0:1') })).status).toBe(200);
  expect((await api('/catalog/categories', { headers: v6('0:0:0:2') })).status).toBe(200);
  expect((await trpc('tokens.list', v6('abcd:0:0:3'))).status).toBe(401);
  expect((await api('/catalog/categories', { headers: v6('ffff:ffff:ffff:ffff') })).status).toBe(200);
  const limited = await api('/catalog/categories', { headers: v6('1234:5678:9abc:def0') });
  expect(limited.status).toBe(429);
  expect((await trpc('tokens.list', v6('0:0:0:5'))).status).toBe(429);
  // The next /64 has its own budget.
  expect(
    (await api('/catalog/categories', { headers: { 'x-forwarded-for': `2001:db8:${n.toString(16)}:2::1` } })).status,
  ).toBe(200);
});
