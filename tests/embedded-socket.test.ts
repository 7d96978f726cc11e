/**
 * server/db/socket.ts on a real PGlite and a real postgres.js client over the Unix socket: a client's
 * transaction holds the database (the owner's queries wait for it and never run inside it), a client
 * idle inside a transaction is rolled back and told why, and notifications of its commits reach the owner.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { PGlite, protocol } from '@electric-sql/pglite';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EMBEDDED_SOCKET_PORT, shareEmbeddedDatabase, type SharedDatabase } from '../server/db/socket';

let pg: PGlite;
let shared: SharedDatabase;
let dir: string;
const notified: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-socket-'));
  pg = await PGlite.create();
  await pg.exec('create table t (id int)');
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
  expect(pg.isInTransaction()).toBe(false);
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
  expect(pg.isInTransaction()).toBe(false);
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
