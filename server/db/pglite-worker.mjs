/**
 * The embedded database engine of a data folder, on a worker thread (embedded-engine.ts starts it).
 * PGlite runs PostgreSQL on the thread that calls it, one synchronous call per protocol message, and
 * cannot interrupt a statement: on the Hub's own thread one long statement (from psql on the shared
 * socket, or a runaway query) would stop every request, /healthz included. Here it stops only this
 * thread, which the Hub ends and starts again when a statement runs past HUB_DB_STATEMENT_TIMEOUT_MS.
 *
 * Plain JavaScript on purpose: a worker starts from a file, and this one must load the same way under
 * tsx, vitest and the production bundle.
 *
 * Messages in: {id, op, ...}; out: {id, result} | {id, error} | {notification} | {ready} | {failed}.
 * `busy` (shared with the Hub's thread): [start of the engine call under way (ms since epoch) or 0, its owner].
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const busy = new Float64Array(workerData.busy);
/** Whose statements run now: 0 the Hub, else the socket client holding the database. */
let owner = 0;
const transactions = new Map(); // id → {tx, resolve, reject, finished}
const ROLLBACK = new Error('rolled back by the Hub');
const holds = new Map(); // id → release

/** Everything a query's answer holds that the Hub reads, in a form that crosses threads. */
function errorFields(err) {
  const fields = { message: err?.message ?? String(err), name: err?.name ?? 'Error' };
  if (err && typeof err === 'object') {
    for (const [key, value] of Object.entries(err)) {
      if (value === undefined || typeof value === 'function' || (typeof value === 'object' && value !== null)) continue;
      fields[key] = value;
    }
  }
  return fields;
}

/** drizzle passes parsers that keep some types as text (dates, intervals): functions do not cross threads. */
function asText(oids) {
  const parsers = {};
  for (const oid of oids ?? []) parsers[oid] = (value) => value;
  return parsers;
}

let pg;
try {
  pg = await PGlite.create(workerData.dir, { extensions: { pg_trgm } });
} catch (err) {
  parentPort.postMessage({ failed: errorFields(err) });
  process.exit(1);
}

// Every protocol message reaches the engine through this one synchronous call: time it.
const engineCall = pg.execProtocolRawSync.bind(pg);
pg.execProtocolRawSync = (message) => {
  busy[1] = owner;
  busy[0] = Date.now();
  try {
    return engineCall(message);
  } finally {
    busy[0] = 0;
  }
};

const ops = {
  query({ sql, params, rowMode, textTypes, tx }) {
    const client = tx === undefined ? pg : transactions.get(tx)?.tx;
    if (!client) throw Object.assign(new Error('the transaction has ended'), { code: '25P01' });
    return client.query(sql, params, { rowMode, parsers: asText(textTypes) });
  },
  begin({ id }) {
    return new Promise((begun, failed) => {
      let began = false;
      const finished = pg.transaction(
        (tx) =>
          new Promise((resolve, reject) => {
            began = true;
            transactions.set(id, { tx, resolve, reject, finished });
            begun(id);
          }),
      );
      finished.catch((err) => began || failed(err)); // BEGIN itself failed
    });
  },
  /** Commits (the answer is COMMIT's error, if any) or rolls back the transaction `tx`. */
  async end({ tx, commit }) {
    const open = transactions.get(tx);
    if (!open) return null;
    transactions.delete(tx);
    if (commit) open.resolve();
    else open.reject(ROLLBACK);
    try {
      await open.finished;
    } catch (err) {
      if (err !== ROLLBACK) throw err;
    }
    return null;
  },
  hold({ id, client }) {
    return new Promise((acquired) => {
      void pg._runExclusiveTransaction(
        () =>
          new Promise((release) => {
            owner = client;
            holds.set(id, () => {
              owner = 0;
              release();
            });
            acquired(id);
          }),
      );
    });
  },
  release({ hold }) {
    holds.get(hold)?.();
    holds.delete(hold);
    return null;
  },
  async raw({ message }) {
    const chunks = [];
    await pg._runExclusiveQuery(() =>
      pg.execProtocolRawStream(message, { onRawData: (data) => chunks.push(new Uint8Array(data)) }),
    );
    return { data: concat(chunks), inTransaction: pg.isInTransaction() };
  },
  inTransaction() {
    return pg.isInTransaction();
  },
  async listen({ channel }) {
    await pg.listen(channel, (payload) => parentPort.postMessage({ notification: { channel, payload } }));
    return null;
  },
  async close() {
    await pg.close();
    return null;
  },
};

function concat(chunks) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

parentPort.on('message', (message) => {
  Promise.resolve()
    .then(() => ops[message.op](message))
    .then(
      (result) => parentPort.postMessage({ id: message.id, result }),
      (err) => parentPort.postMessage({ id: message.id, error: errorFields(err) }),
    );
});
parentPort.postMessage({ ready: true });
