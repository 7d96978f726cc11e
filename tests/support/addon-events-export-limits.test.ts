/**
 * The addon-event export (/api/export/addon-events) is admitted like every other route (server/api/rateLimit.ts
 * admit): made-up credentials spend the address's failed-credential budget and then get 429, and a valid
 * credential has its per-credential limit. Before issue 34 it built its context directly: 25 bogus keys all got
 * 401 and 130 exports all got 200.
 */
import { issueSecret } from '@shared/tokens';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { GET as exportRoute } from '../../app/api/export/addon-events/route';
import { createOrg, createUser } from '../helpers';
import { reloadConfig } from '../../server/config';

let n = 0;
let address = '';
const saved = { ...process.env };

beforeEach(async () => {
  address = `203.0.113.${++n}`;
  // Windows are fixed minutes: start each test well inside one, so its counts are not split.
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 100));
}, 30_000);
afterEach(() => {
  for (const name of ['CREDENTIAL', 'FAILED_AUTH'])
    process.env[`HUB_RATE_LIMIT_${name}`] = saved[`HUB_RATE_LIMIT_${name}`];
});

async function exportWith(headers: Record<string, string>) {
  const res = await exportRoute(
    new Request('http://hub.test/api/export/addon-events?format=ndjson', {
      headers: { 'x-forwarded-for': address, ...headers },
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

it('made-up credentials get 401 until the failed-credential budget is spent, then 429 with Retry-After', async () => {
  process.env.HUB_RATE_LIMIT_FAILED_AUTH = '5';
  reloadConfig();
  const statuses: number[] = [];
  for (let i = 0; i < 25; i++) {
    const token = i % 2 === 0 ? issueSecret('svh_').secret : `not-a-jwt-${i}`;
    const res = await exportWith({ authorization: `Bearer ${token}` });
    statuses.push(res.status);
    if (res.status === 429) {
      expect(JSON.parse(res.text)).toMatchObject({ code: 'TOO_MANY_REQUESTS', request_id: expect.any(String) });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get('ratelimit')).toMatch(/^"failed_auth";r=0;t=\d+$/);
    }
  }
  expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
  expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
});

it('an organization admin’s exports count against the per-credential limit', async () => {
  process.env.HUB_RATE_LIMIT_CREDENTIAL = '3';
  reloadConfig();
  const admin = await createUser();
  await createOrg({ admin });
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await exportWith({ authorization: `Bearer ${admin.token}` });
    statuses.push(res.status);
    if (res.status === 200) expect(res.headers.get('ratelimit')).toMatch(/^"credential";r=\d+;t=\d+$/);
  }
  expect(statuses).toEqual([200, 200, 200, 429, 429]);
});
