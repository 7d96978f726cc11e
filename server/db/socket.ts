/**
 * The running Hub shares its embedded database (PGlite) with the operator's tools: a PostgreSQL wire
 * protocol endpoint on a Unix socket inside the data folder, `<HUB_DATA_DIR>/.s.PGSQL.5432` (the name
 * libpq and postgres.js derive from host=<folder> port=5432). The CLI connects through it when the folder
 * is locked by a running Hub (client.ts), and so can `psql "host=<folder> user=postgres dbname=postgres"`.
 * A Unix socket is reachable from this machine only; it is created owner-only (0600): no password, the
 * file's permissions are the access control.
 *
 * PGlite is one PostgreSQL backend: every client shares its session, one statement at a time. The wire
 * handling follows @electric-sql/pglite-socket (startup, SSL refusal, message framing). That package is
 * not used itself: its releases pin exact PGlite versions (0.2.17: @electric-sql/pglite 0.5.14, this Hub
 * has 0.5.16) plus seven extension packages as peers, and its per-message queue lets the Hub's statements
 * run inside a socket client's open transaction (and two clients' extended-query messages interleave).
 * Here instead:
 *  - a client holds the whole database from its first message until it is idle again (a Sync or simple
 *    Query answered with ReadyForQuery "idle": outside a transaction block, no COPY under way). The Hub's
 *    queries and transactions wait meanwhile, and a client waits for the Hub's running transaction, so
 *    nobody's statements land in another's transaction or between another's Parse and Execute.
 *  - a client that keeps the database busy (an open transaction, an unfinished extended-query batch)
 *    without sending anything for IDLE_HOLD_MS is rolled back and disconnected, like PostgreSQL's
 *    idle_in_transaction_session_timeout: an interactive `psql` BEGIN must not stop the Hub for long.
 *  - session settings (SET) a client makes are its own: kept aside and reset when it goes idle, put
 *    back when it sends again. Its named prepared statements, cursors and advisory locks are dropped when
 *    it disconnects.
 *  - notifications the client's commits raise on the invalidation channel reach this process's caches
 *    (invalidation.ts), as LISTEN/NOTIFY does between Hub processes on PostgreSQL.
 *  - a statement that runs past HUB_DB_STATEMENT_TIMEOUT_MS restarts the engine (embedded-engine.ts): its
 *    client is told so (57014), every other client that its session ended (57P01).
 */
import fs from 'node:fs';
import net from 'node:net';
import { protocol } from '@electric-sql/pglite';
import { embeddedSocketPath, MAX_SOCKET_PATH } from './socket-path';

export { EMBEDDED_SOCKET_PORT, embeddedSocketPath } from './socket-path';
/** How long a client may hold the database without sending anything while it is not idle. */
export const IDLE_HOLD_MS = 10_000;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

export interface SharedDatabase {
  path: string;
  clients(): number;
  /**
   * The engine ended a statement that ran too long by restarting (embedded-engine.ts): every client's session
   * is gone. `owner` (the client whose statement it was) is told so; the others that their session ended.
   */
  restarted(owner: number, reason: string): void;
  close(): Promise<void>;
}

/** What the socket needs of the database (embedded-engine.ts): hold it for one client, run its messages. */
export interface SocketEngine {
  hold(client: number): Promise<() => void>;
  raw(message: Uint8Array): Promise<{ data: Uint8Array; inTransaction: boolean }>;
}

interface Options {
  /** A notification a client's transaction raised (channel, payload). */
  onNotification?: (channel: string, payload: string) => void;
  idleHoldMs?: number;
}

/** Serves the engine's database on the data folder's socket. Call with the data folder locked by this process. */
export async function shareEmbeddedDatabase(
  engine: SocketEngine,
  dataDir: string,
  options: Options = {},
): Promise<SharedDatabase> {
  const socketPath = embeddedSocketPath(dataDir);
  if (socketPath.length > MAX_SOCKET_PATH) {
    throw new Error(
      `the data folder path is too long for a Unix socket (${socketPath.length} > ${MAX_SOCKET_PATH} characters): ${socketPath}`,
    );
  }
  fs.rmSync(socketPath, { force: true }); // left by a Hub that did not shut down; the folder's lock is ours
  const connections = new Set<Connection>();
  let nextId = 1;
  const server = net.createServer((socket) => {
    const connection = new Connection(nextId++, engine, socket, options);
    connections.add(connection);
    void connection.finished.then(() => connections.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Owner-only from the start: no window in which another local user could connect.
    const umask = process.umask(0o177);
    try {
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  // An exit without close() (process.exit on a signal) leaves no socket behind that nothing answers.
  const removeSocket = () => fs.rmSync(socketPath, { force: true });
  process.once('exit', removeSocket);
  return {
    path: socketPath,
    clients: () => connections.size,
    restarted: (owner, reason) => {
      for (const connection of connections) connection.lose(owner, reason);
    },
    close: async () => {
      process.off('exit', removeSocket);
      for (const connection of connections) await connection.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(socketPath, { force: true });
    },
  };
}

const COPY_FROM_STDIN = /\bcopy\b[\s\S]*?\bfrom\s+stdin\b/i;

/** The SQL of a simple Query ('Q': the text) or a Parse ('P': statement name, then the text). */
function queryText(message: Buffer, type: 'Q' | 'P'): string {
  let start = 5;
  if (type === 'P') start = message.indexOf(0, start) + 1;
  const end = message.indexOf(0, start);
  return message.toString('utf8', start, end < 0 ? message.length : end);
}

function backendMessage(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

function errorResponse(severity: 'ERROR' | 'FATAL', code: string, message: string): Buffer {
  return backendMessage('E', Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${message}\0\0`));
}

function readyForQuery(status: 'I' | 'T'): Buffer {
  return backendMessage('Z', Buffer.from(status));
}

function fatal(code: string, message: string): Buffer {
  return errorResponse('FATAL', code, message);
}

class Connection {
  private input = Buffer.alloc(0);
  private started = false;
  private closed = false;
  private release: (() => void) | null = null;
  private work: Promise<void> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;
  private settings: [string, string][] = [];
  private readyStatus: string | null = null;
  private inTransaction = false;
  /** Between a message's arrival and its answer. */
  private working = false;
  /** The engine restarted: this client's session is gone, nothing to clean up. */
  private lost = false;
  private readonly parser = new protocol.Parser();
  /** Settles once the client is gone and what it left in the session is cleaned up. */
  readonly finished: Promise<void>;

  constructor(
    readonly id: number,
    private readonly engine: SocketEngine,
    private readonly socket: net.Socket,
    private readonly options: Options,
  ) {
    socket.on('data', (data) => {
      if (this.lost) return; // its session ended with the engine's restart: nothing more of it runs
      clearTimeout(this.idleTimer);
      this.input = Buffer.concat([this.input, data]);
      this.work = this.work
        .then(() => this.drain())
        .catch(() => {
          if (!this.lost) this.socket.destroy();
        });
    });
    socket.on('error', () => {});
    this.finished = new Promise((resolve) => {
      socket.on('close', () => {
        this.closed = true;
        clearTimeout(this.idleTimer);
        // A cleanup that fails met a restart of the engine, which ended the session anyway.
        this.work = this.work
          .then(() => this.cleanUp())
          .catch(() => {})
          .finally(resolve);
      });
    });
  }

  /** Disconnects the client (the Hub is shutting down) once what it sent has been answered. */
  async end() {
    this.socket.end();
    this.socket.destroySoon();
    await this.finished;
  }

  /** Its session ended with a restart of the engine: say why, as PostgreSQL would, and disconnect. */
  lose(owner: number, reason: string) {
    if (this.lost) return;
    this.lost = true;
    this.release = null;
    clearTimeout(this.idleTimer);
    // A client waiting for an answer reads an error only with the ReadyForQuery that ends it (libpq, postgres.js).
    const answer = (code: string, message: string) =>
      this.working ? [errorResponse('ERROR', code, message), readyForQuery('I')] : [];
    const ended = fatal('57P01', 'terminating connection: the Hub restarted its embedded database');
    this.socket.end(
      Buffer.concat([
        ...(this.id === owner
          ? answer('57014', `canceling statement due to statement timeout: ${reason}; committed changes are kept`)
          : answer('57P01', `terminating connection: another client's ${reason}`)),
        ended,
      ]),
    );
  }

  private next(): Buffer | null {
    const buf = this.input;
    let length: number;
    if (!this.started) {
      if (buf.length < 4) return null;
      length = buf.readInt32BE(0);
    } else {
      if (buf.length < 5) return null;
      length = 1 + buf.readInt32BE(1);
    }
    if (buf.length < length) return null;
    this.input = buf.subarray(length);
    return buf.subarray(0, length);
  }

  private async drain() {
    this.working = true;
    try {
      await this.drainMessages();
    } finally {
      this.working = false;
    }
  }

  private async drainMessages() {
    for (let message = this.next(); message && !this.closed && !this.lost; message = this.next()) {
      if (!this.started) {
        const code = message.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          this.socket.write('N'); // no encryption on a local socket
          continue;
        }
        if (code === CANCEL_REQUEST) {
          this.socket.end(); // one backend, nothing to signal
          return;
        }
        if (code !== PROTOCOL_3) {
          this.socket.destroy();
          return;
        }
        this.started = true;
        await this.execute(message, true);
        continue;
      }
      const type = String.fromCharCode(message[0]!);
      if (type === 'X') {
        this.socket.end();
        return;
      }
      if ((type === 'Q' || type === 'P') && COPY_FROM_STDIN.test(queryText(message, type))) {
        this.refuseCopyIn(type);
        if (type === 'P') return;
        continue;
      }
      // Idle after a Sync or a simple Query answered outside a transaction block.
      await this.execute(message, type === 'S' || type === 'Q');
    }
    if (this.release && !this.closed) {
      this.idleTimer = setTimeout(() => {
        // As PostgreSQL says it; then the close rolls the transaction back (cleanUp).
        this.socket.end(
          fatal(
            '25P03',
            "terminating connection due to idle-in-transaction timeout (it held the Hub's embedded database)",
          ),
        );
      }, this.options.idleHoldMs ?? IDLE_HOLD_MS);
    }
  }

  /**
   * PGlite's backend waits for COPY data inside one synchronous call: it would stop the database until the
   * statement timeout restarts it.
   * A simple Query gets an error (the session goes on); an extended-query Parse a FATAL one.
   */
  private refuseCopyIn(type: 'Q' | 'P') {
    const message =
      "COPY FROM STDIN is not supported on the Hub's embedded database socket (use INSERT, or stop the Hub)";
    if (type === 'P') {
      this.socket.end(errorResponse('FATAL', '0A000', message));
      return;
    }
    const inTransaction = this.release !== null && this.inTransaction;
    this.socket.write(
      Buffer.concat([errorResponse('ERROR', '0A000', message), readyForQuery(inTransaction ? 'T' : 'I')]),
    );
  }

  /**
   * Runs one message with the database held. `mayBeIdle`: a Sync, a simple Query or the startup, after
   * which the client is idle if the answer ends with ReadyForQuery "idle" (not in a transaction block,
   * not in the middle of a COPY).
   */
  private async execute(message: Buffer, mayBeIdle: boolean) {
    if (!this.release) {
      this.release = await this.engine.hold(this.id);
      if (this.settings.length) await this.restoreSettings();
    }
    this.readyStatus = null;
    const { data, inTransaction } = await this.engine.raw(new Uint8Array(message));
    this.inTransaction = inTransaction;
    if (!this.closed) this.socket.write(data);
    this.watch(data);
    if (mayBeIdle && this.readyStatus === 'I' && !inTransaction) await this.letGo();
  }

  /** What the backend answers: ReadyForQuery's status, and notifications for the Hub's caches. */
  private watch(data: Uint8Array) {
    try {
      this.parser.parse(data, (msg) => {
        if (msg.name === 'readyForQuery')
          this.readyStatus = (msg as InstanceType<typeof protocol.messages.ReadyForQueryMessage>).status;
        if (msg.name === 'notification' && this.options.onNotification) {
          const { channel, payload } = msg as InstanceType<typeof protocol.messages.NotificationResponseMessage>;
          this.options.onNotification(channel, payload);
        }
      });
    } catch {
      // The client parses the answer too. Without the status this client keeps the database until
      // the idle limit cuts it: safe, never shared mid-transaction.
    }
  }

  /** Keep the client's own session settings aside, reset them for the Hub, and hand the database back. */
  private async letGo() {
    const { data } = await this.engine.raw(
      protocol.serialize.query(
        "select coalesce(json_agg(json_build_array(name, setting)), '[]')::text from pg_settings where source = 'session'; reset all",
      ),
    );
    let row: InstanceType<typeof protocol.messages.DataRowMessage> | undefined;
    new protocol.Parser().parse(data, (msg) => {
      if (msg.name === 'dataRow') row ??= msg as InstanceType<typeof protocol.messages.DataRowMessage>;
    });
    this.settings = row?.fields[0] ? (JSON.parse(row.fields[0]) as [string, string][]) : [];
    const release = this.release;
    this.release = null;
    release?.();
  }

  private async restoreSettings() {
    const json = JSON.stringify(this.settings).replace(/'/g, "''");
    await this.engine.raw(
      protocol.serialize.query(`select set_config(s->>0, s->>1, false) from json_array_elements('${json}'::json) s`),
    );
  }

  /** The client is gone: end what it left open, drop its statements and settings. */
  private async cleanUp() {
    if (!this.started || this.lost) return;
    if (!this.release) {
      this.release = await this.engine.hold(this.id);
    }
    try {
      // A Sync ends an unfinished extended-query batch; then roll back an open transaction.
      const { inTransaction } = await this.engine.raw(protocol.serialize.sync());
      if (inTransaction) await this.engine.raw(protocol.serialize.query('rollback'));
      await this.engine.raw(
        protocol.serialize.query('deallocate all; close all; reset all; select pg_advisory_unlock_all()'),
      );
    } finally {
      this.settings = [];
      const release = this.release;
      this.release = null;
      release?.();
    }
  }
}
