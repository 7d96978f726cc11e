/**
 * A connection that dies while it starts: postgres.js reads the array types (pg_type) as the first statement of
 * every new connection and dropped that promise, so a connection terminated at that moment (a failover, a
 * `pg_terminate_backend`, a database dropped under it, a statement_timeout too short for that query) was an
 * unhandled rejection — which ends a Node process. Patched (patches/postgres+3.4.9.patch; upstream
 * porsager/postgres#1192, #1223): the failure stays with the connection, whose queries fail or go on.
 * A TCP proxy in front of the real server cuts the first connection when the types query passes through it.
 */
import net, { type AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import { connectionOptions } from '../../server/db/postgres';

const serverUrl = new URL(process.env.PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
let cuts = 0;
/** An ErrorResponse message: FATAL 57P01, "terminating connection due to administrator command". */
const terminated = (() => {
  const fields = Buffer.from(
    'SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0',
    'latin1',
  );
  const header = Buffer.alloc(5);
  header.write('E', 0, 'latin1');
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
})();
const proxy = net.createServer((client) => {
  const upstream = net.connect(Number(serverUrl.port || 5432), serverUrl.hostname);
  const cutThisOne = cuts === 0;
  client.on('data', (chunk: Buffer) => {
    if (cutThisOne && chunk.includes("typcategory = 'A'")) {
      // What the server sends when it terminates a backend (pg_terminate_backend, DROP DATABASE … WITH (FORCE)).
      cuts++;
      upstream.destroy();
      client.end(terminated);
      return;
    }
    upstream.write(chunk);
  });
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxied = Object.assign(new URL(serverUrl), { port: String((proxy.address() as AddressInfo).port) });
afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

it('a connection cut while it reads the array types fails its queries, not the process; the next query works', async () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', record);
  // The Hub's own connection options (session mode: the statement_timeout and jit settings at connect).
  const sql = postgres(proxied.toString(), connectionOptions('session', 1));
  try {
    // The first query may fail with the cut connection's error (upstream #1223); it must not hang.
    await sql`select 1 as one`.catch(() => undefined);
    expect(cuts).toBe(1);
    expect([...(await sql`select 2 as two`)]).toEqual([{ two: 2 }]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', record);
    await sql.end({ timeout: 1 });
  }
});
