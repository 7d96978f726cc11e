/**
 * The production server serves pages and /api/trpc from Next.js on a thread of its own (server/http/pages.ts): what
 * the edge reports of those requests must stay whole. The access line names the signed-in caller the pages thread
 * resolved, the request id is the one the client sent in every line and answer, the thread's internal caller header
 * never reaches the client, and /metrics counts the thread's statements under their route class.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { signedIn, uniqueSuffix } from './helpers';

const run = process.env.E2E_RUN ?? uniqueSuffix();
const logFile = path.resolve(import.meta.dirname, '../test-results/e2e-hub-server.log');

/** The server's JSON lines with this request id (the log is written in blocks: poll for it). */
function linesOf(requestId: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes(requestId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('a tRPC call through the pages thread: its caller and request id in the access line, its statements in /metrics', async ({
  page,
}) => {
  await signedIn(page, `admin-${run}@example.test`, 'Ada Admin');
  const requestId = `e2e-pages-thread-${uniqueSuffix()}`;
  const answer = await page.request.get('/api/trpc/admin.stats?input=%7B%7D', {
    headers: { 'x-request-id': requestId },
  });
  expect(answer.status()).toBe(200);
  expect(answer.headers()['x-request-id']).toBe(requestId);
  expect(Object.keys(answer.headers())).not.toContain('x-hub-caller');

  await expect
    .poll(() => linesOf(requestId).find((line) => line.msg === 'request'), { timeout: 5_000 })
    .toMatchObject({ route: '/api/trpc/admin.stats', status: 200, caller: { kind: 'user', id: expect.any(String) } });

  const metrics = await page.request.get('/metrics', {
    headers: { authorization: `Bearer ${process.env.E2E_METRICS_TOKEN}` },
  });
  expect(metrics.status()).toBe(200);
  const trpcStatements = /^hub_db_statements_total\{pool="primary",source="trpc"\} (\d+)$/m.exec(await metrics.text());
  expect(Number(trpcStatements?.[1])).toBeGreaterThan(0);
});
