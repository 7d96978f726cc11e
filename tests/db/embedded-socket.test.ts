/**
 * server/db/socket.ts on the real engine (PGlite on its worker thread, embedded-engine.ts) and a real
 * postgres.js client over the Unix socket: a client's transaction holds the database (the owner's queries
 * wait for it and never run inside it), a client idle inside a transaction is rolled back and told why,
 * notifications of its commits reach the owner, and a statement that runs past the statement timeout is
 * ended (the engine restarts) while the owner's thread goes on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { protocol } from '@electric-sql/pglite';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedEngine } from '../../server/db/embedded-engine';
import { EMBEDDED_SOCKET_PORT, shareEmbeddedDatabase, type SharedDatabase } from '../../server/db/socket';
import { seedDataFolder } from '../../scripts/test-databases';

const STATEMENT_TIMEOUT_MS = 1_500;
let pg: EmbeddedEngine;
let shared: SharedDatabase;
let dir: string;
const notified: string[] = [];
const restarts: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-socket-'));
  seedDataFolder(dir, process.env.HUB_TEST_PGLITE_SNAPSHOT);
  pg = await EmbeddedEngine.open(dir, {
    statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    onRestart: (owner, reason) => {
      restarts.push(reason);
      shared.restarted(owner, reason);
    },
  });
  await pg.query('create table t (id int)');
  await pg.listen('hub_invalidate', () => {});
  shared = await shareEmbeddedDatabase(pg, dir, {
    idleHoldMs: 500,
    onNotification: (channel, payload) => notified.push(`${channel}:${payload}`),
  });
});

afterAll(async () => {
  await shared?.close();
  await pg?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const connect = () =>
  postgres({
    host: dir,
    port: EMBEDDED_SOCKET_PORT,
    user: 'postgres',
    database: 'postgres',
    max: 1,
    prepare: false,
    onnotice: () => {},
  });

it('serves an owner-only socket in the folder, removed on close', () => {
  expect(shared.path).toBe(path.join(dir, '.s.PGSQL.5432'));
  const stat = fs.statSync(shared.path);
  expect(stat.isSocket()).toBe(true);
  expect(stat.mode & 0o077).toBe(0);
});

it("makes the owner's queries wait for a client's transaction instead of running inside it", async () => {
  const sql = connect();
  try {
    const order: string[] = [];
    let ownerQuery: Promise<unknown> | undefined;
    await sql.begin(async (tx) => {
      await tx`insert into t values (1)`;
      // The owner asks now, inside the client's transaction window: it must see the state after it.
      ownerQuery = pg
        .query<{ n: number }>('select count(*)::int as n from t')
        .then((r) => order.push(`owner saw ${r.rows[0]!.n}`));
      await new Promise((r) => setTimeout(r, 200));
      await tx`insert into t values (2)`;
      order.push('client commits');
    });
    await ownerQuery;
    expect(order).toEqual(['client commits', 'owner saw 2']);
  } finally {
    await sql.end();
  }
});

it('rolls back and disconnects a client idle inside a transaction', async () => {
  const sql = connect();
  const failure = sql
    .begin(async (tx) => {
      await tx`insert into t values (99)`;
      await new Promise((r) => setTimeout(r, 1_500));
      await tx`select 1`;
    })
    .catch((err: { code?: string; message: string }) => err);
  expect(await failure).toMatchObject({ code: 'CONNECTION_CLOSED' });
  await sql.end().catch(() => {});
  // The owner is not blocked, and the client's insert is gone.
  const rows = await pg.query<{ n: number }>('select count(*)::int as n from t where id = 99');
  expect(rows.rows[0]!.n).toBe(0);
  expect(await pg.isInTransaction()).toBe(false);
});

it('tells a client it cut why, as PostgreSQL does (FATAL 25P03)', async () => {
  const socket = net.connect(shared.path);
  let received = Buffer.alloc(0);
  socket.on('data', (d) => (received = Buffer.concat([received, d])));
  const closed = new Promise((r) => socket.once('close', r));
  socket.write(protocol.serialize.startup({ user: 'postgres', database: 'postgres' }));
  socket.write(protocol.serialize.query('begin'));
  await closed;
  const text = received.toString('latin1');
  expect(text).toContain('BEGIN');
  expect(text).toContain('C25P03');
  expect(text).toContain('idle-in-transaction timeout');
  await expect.poll(() => shared.clients()).toBe(0); // cleaned up: rolled back
  expect(await pg.isInTransaction()).toBe(false);
});

it('refuses COPY FROM STDIN (PGlite would wait for its data inside one blocking call), and the session goes on', async () => {
  const socket = net.connect(shared.path);
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.write(protocol.serialize.startup({ user: 'postgres', database: 'postgres' }));
  socket.write(protocol.serialize.query('copy t from stdin'));
  socket.write(protocol.serialize.query("select 'still here'"));
  await expect.poll(() => received).toContain('still here');
  expect(received).toContain('C0A000');
  expect(received).toContain('COPY FROM STDIN is not supported');
  socket.end(protocol.serialize.end());
  await expect.poll(() => shared.clients()).toBe(0);
  expect((await pg.query<{ n: number }>('select count(*)::int as n from t')).rows[0]!.n).toBe(2);
});

it("passes on the notifications of a client's commits", async () => {
  const sql = connect();
  try {
    await sql.begin((tx) => tx`select pg_notify('hub_invalidate', 'catalog')`);
    await sql`select pg_notify('hub_invalidate', 'auth')`;
    expect(notified).toEqual(['hub_invalidate:catalog', 'hub_invalidate:auth']);
  } finally {
    await sql.end();
  }
});

/** A client on a raw socket, signed in and idle: what it is sent, and when it is closed. */
async function rawClient() {
  const socket = net.connect(shared.path);
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  const closed = new Promise((r) => socket.once('close', r));
  socket.write(protocol.serialize.startup({ user: 'postgres', database: 'postgres' }));
  await expect.poll(() => received).toContain('Z');
  return { received: () => received, closed };
}

it('ends a statement that runs past the timeout, tells its client why, and the owner goes on', async () => {
  const sql = connect();
  try {
    await sql`insert into t values (7)`; // committed before: kept through the restart
    const other = await rawClient(); // another client, idle
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const started = Date.now();
    const failure = await sql`select count(*) from generate_series(1, 1000000000)`.catch((err: unknown) => err);
    const elapsed = Date.now() - started;
    clearInterval(ticker);
    expect(failure).toMatchObject({ code: '57014' });
    expect((failure as Error).message).toContain('HUB_DB_STATEMENT_TIMEOUT_MS');
    expect(elapsed).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS);
    expect(elapsed).toBeLessThan(STATEMENT_TIMEOUT_MS + 3_000);
    // This thread ran all along: PGlite on it would have frozen every timer for the whole statement (one tick at
    // most, after it). A loaded machine may delay some of the 30 or so.
    expect(ticks).toBeGreaterThanOrEqual(5);
    expect(restarts).toHaveLength(1);
    // The other client's session ended too, and it was told why.
    await other.closed;
    expect(other.received()).toContain('C57P01');
    expect(other.received()).toContain('the Hub restarted its embedded database');
    // The database is back, with what was committed before, for the owner and for new clients.
    expect((await pg.query<{ n: number }>('select count(*)::int as n from t where id = 7')).rows[0]!.n).toBe(1);
    expect(await sql`select count(*)::int as n from t where id = 7`).toEqual([{ n: 1 }]);
  } finally {
    await sql.end({ timeout: 1 });
  }
});

it("fails the owner's own statement past the timeout with 57P01 (a 503), and its next one works", async () => {
  const failure = await pg.query('select pg_sleep(30)').catch((err: unknown) => err);
  expect(failure).toMatchObject({ code: '57P01' });
  expect(restarts).toHaveLength(2);
  expect((await pg.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
});
