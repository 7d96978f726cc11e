/**
 * A database outage: Core answers 503 (readiness and API alike) instead of failing obscurely, keeps
 * running, and recovers by itself when the database comes back. Runs with CORE_TEST_DATABASE_URL only
 * (see vitest.config.ts): the embedded database lives in the process and cannot go away.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectErrorShape, freshDatabase, PG_SERVER, startCore, type TestCore } from '../helpers';

const SERVER = PG_SERVER!;
const TEMP = { username: 'root', password: 'temporary admin password' };
let t: TestCore;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let admin: ReturnType<typeof postgres>;

beforeAll(async () => {
  db = await freshDatabase(SERVER);
  admin = postgres(SERVER, { max: 1, onnotice: () => {} });
  t = await startCore({ temporaryAdmin: TEMP }, db);
});
afterAll(async () => {
  await t?.stop();
  await db?.drop();
  await admin?.end();
});

it('answers 503 while the database is down and recovers when it is back', async () => {
  const login = await t.call('POST', '/api/v1/auth/login', { body: TEMP });
  const token = login.body.access_token;
  expect((await t.call('GET', '/api/v1/users', { token })).status).toBe(200);
  const machine = (await t.call('POST', '/api/v1/tokens', { token, body: { name: 'mcp', role: 'readonly' } })).body
    .token;
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const mcp = () =>
    t.call('POST', '/mcp', {
      token: machine,
      body: initialize,
      headers: { accept: 'application/json, text/event-stream' },
    });
  expect((await mcp()).status).toBe(200);

  const name = new URL(db.databaseUrl!).pathname.slice(1);
  await admin.unsafe(`alter database ${name} allow_connections false`);
  await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);

  const ready = await t.call('GET', '/readyz');
  expect(ready.status).toBe(503);
  for (const res of [
    await t.call('GET', '/api/v1/users', { token }),
    await t.call('POST', '/api/v1/auth/login', { body: TEMP }),
    await mcp(),
  ]) {
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expectErrorShape(res);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
  }
  expectErrorShape(ready);
  expect((await t.call('GET', '/healthz')).status).toBe(200); // alive, just not ready

  await admin.unsafe(`alter database ${name} allow_connections true`);
  expect((await t.call('GET', '/readyz')).status).toBe(200);
  expect((await t.call('GET', '/api/v1/users', { token })).status).toBe(200);
  expect((await mcp()).status).toBe(200);
});
