/**
 * The embedded database of a data folder, run on a worker thread (pglite-worker.mjs), seen from the Hub's
 * thread. It offers what drizzle's PGlite driver calls (query, transaction) and what the shared socket
 * needs (hold the database for one client, run its protocol messages: socket.ts).
 *
 * Why a thread: PGlite cannot interrupt a statement, so on the Hub's own thread one long statement stopped
 * every request. Here the Hub's thread stays free, and a watchdog ends any statement that runs past
 * `statementTimeoutMs` (HUB_DB_STATEMENT_TIMEOUT_MS) the only way PGlite allows: it ends the thread and
 * opens the folder again on a new one (about a second; PostgreSQL's crash recovery replays the log, so
 * every committed change stays). What was running or queued on the old thread fails with 57P01 (the
 * Hub answers 503 unavailable, as during any database outage); the socket's clients are told and
 * disconnected (socket.ts). Calls made during the restart wait for the new thread.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results, Transaction } from '@electric-sql/pglite';

/** Whose statement ran too long: 0 the Hub, else the id of the socket client that held the database. */
export type StatementOwner = number;

interface Options {
  /** No statement runs longer than this (ms); 0: no limit. */
  statementTimeoutMs: number;
  /** After a restart: what was lost (owner of the statement that ran too long). */
  onRestart?: (owner: StatementOwner, reason: string) => void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** The worker's file, beside this one in the source tree (also what the production bundle loads). */
function workerFile() {
  return path.join(process.cwd(), 'server', 'db', 'pglite-worker.mjs');
}

/** An error the worker reported, with its PostgreSQL fields (code, detail, constraint, …) as own properties. */
function rebuildError(fields: Record<string, unknown>): Error {
  const { message, name, ...rest } = fields;
  const err = Object.assign(new Error(String(message)), rest);
  if (typeof name === 'string') err.name = name;
  return err;
}

/** Every call waiting on a thread fails with 57P01 (admin_shutdown: the Hub answers 503 unavailable). */
function failAll(pending: Map<number, Pending>, cause: Error) {
  if (pending.size === 0) return;
  const err = Object.assign(new Error(`embedded database unavailable: ${cause.message}`), { code: '57P01', cause });
  for (const call of pending.values()) call.reject(err);
  pending.clear();
}

export class EmbeddedEngine {
  private worker!: Worker;
  private ready!: Promise<void>;
  private readonly busy = new SharedArrayBuffer(16);
  private readonly busyView = new Float64Array(this.busy);
  private pending!: Map<number, Pending>;
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  /** Threads ended on purpose (a restart, close()): their exit is not a crash. */
  private readonly ended = new WeakSet<Worker>();
  private nextId = 1;
  private closed = false;
  private readonly watchdog: NodeJS.Timeout | undefined;

  private constructor(
    private readonly dir: string,
    private readonly options: Options,
  ) {
    this.start();
    const limit = options.statementTimeoutMs;
    if (limit > 0) {
      this.watchdog = setInterval(() => this.check(), Math.min(250, Math.max(20, limit / 4)));
      this.watchdog.unref();
    }
  }

  /** Opens the data folder's database on a worker thread (the folder must be locked by this process). */
  static async open(dir: string, options: Options): Promise<EmbeddedEngine> {
    const engine = new EmbeddedEngine(dir, options);
    try {
      await engine.ready;
    } catch (err) {
      await engine.close();
      throw err;
    }
    return engine;
  }

  private start() {
    const worker = new Worker(workerFile(), { workerData: { dir: this.dir, busy: this.busy } });
    const pending = new Map<number, Pending>();
    this.worker = worker;
    this.pending = pending;
    worker.unref(); // referenced only while a call waits for it (call())
    let opened = false;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: WorkerMessage) => {
        if ('ready' in message) {
          opened = true;
          return resolve();
        }
        if ('failed' in message) return reject(rebuildError(message.failed));
        if ('notification' in message) {
          const { channel, payload } = message.notification;
          for (const listener of this.listeners.get(channel) ?? []) listener(payload);
          return;
        }
        const call = pending.get(message.id);
        if (!call) return;
        pending.delete(message.id);
        if (pending.size === 0) worker.unref();
        if ('error' in message) call.reject(rebuildError(message.error));
        else call.resolve(message.result);
      });
      worker.on('error', reject);
      worker.on('exit', () => {
        const cause = new Error('the embedded database thread ended');
        reject(cause);
        failAll(pending, cause);
        // Not ended by the watchdog or close() after it had opened the folder: it died (an engine abort).
        if (opened && !this.ended.has(worker) && !this.closed) this.restart(cause.message, 0);
      });
    });
    this.ready.catch(() => {});
  }

  /** The watchdog: a statement that has run past the limit ends the thread; the folder opens on a new one. */
  private check() {
    const since = this.busyView[0]!;
    if (this.closed || since === 0 || Date.now() - since < this.options.statementTimeoutMs) return;
    this.restart(
      `a statement ran longer than HUB_DB_STATEMENT_TIMEOUT_MS (${this.options.statementTimeoutMs} ms)`,
      this.busyView[1]!,
    );
  }

  /** Ends the thread (what ran or waited on it fails with 57P01) and opens the folder on a new one. */
  private restart(reason: string, owner: StatementOwner) {
    this.busyView[0] = 0;
    const old = this.worker;
    this.ended.add(old);
    failAll(this.pending, new Error(`${reason}: the embedded database was restarted`));
    // The old thread ends before the folder opens again: never two engines on one folder. Calls wait meanwhile.
    this.ready = old.terminate().then(() => {
      this.start();
      return this.ready;
    });
    this.ready
      .then(async () => {
        for (const channel of this.listeners.keys()) await this.call({ op: 'listen', channel });
      })
      .catch(() => {}); // calls fail with the reason
    this.options.onRestart?.(owner, reason);
  }

  private async call<T>(message: Record<string, unknown>): Promise<T> {
    if (this.closed) throw Object.assign(new Error('the embedded database is closed'), { code: '57P01' });
    await this.ready;
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.ref();
      this.worker.postMessage({ ...message, id });
    });
  }

  /** PGlite's query(), as drizzle calls it (its parsers keep dates and intervals as text). */
  query<T>(sql: string, params?: unknown[], options?: QueryOptions, tx?: number): Promise<Results<T>> {
    const textTypes = options?.parsers ? Object.keys(options.parsers).map(Number) : undefined;
    return this.call({ op: 'query', sql, params, rowMode: options?.rowMode, textTypes, tx });
  }

  /** PGlite's transaction(): commits when `fn` resolves, rolls back when it throws. */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const tx = await this.call<number>({ op: 'begin' });
    let result: T;
    try {
      result = await fn({
        query: (sql: string, params?: unknown[], options?: QueryOptions) => this.query(sql, params, options, tx),
      } as unknown as Transaction);
    } catch (err) {
      await this.call({ op: 'end', tx, commit: false }).catch(() => {});
      throw err;
    }
    await this.call({ op: 'end', tx, commit: true });
    return result;
  }

  /** Notifications on `channel` from the Hub's own commits (a socket client's are read from its answers). */
  async listen(channel: string, listener: (payload: string) => void): Promise<void> {
    const first = !this.listeners.has(channel);
    const set = this.listeners.get(channel) ?? new Set();
    set.add(listener);
    this.listeners.set(channel, set);
    if (first) await this.call({ op: 'listen', channel });
  }

  /** Holds the whole database for socket client `client` until the answer is called (socket.ts). */
  async hold(client: number): Promise<() => void> {
    const hold = await this.call<number>({ op: 'hold', client });
    const worker = this.worker;
    return () => {
      if (worker === this.worker) void this.call({ op: 'release', hold }).catch(() => {});
    };
  }

  /** Runs protocol messages inside a hold; the whole answer, and whether a transaction block is open. */
  raw(message: Uint8Array): Promise<{ data: Uint8Array; inTransaction: boolean }> {
    return this.call({ op: 'raw', message });
  }

  isInTransaction(): Promise<boolean> {
    return this.call({ op: 'inTransaction' });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.call({ op: 'close' }).catch(() => {});
    this.closed = true;
    clearInterval(this.watchdog);
    this.ended.add(this.worker);
    await this.worker.terminate();
  }
}

type WorkerMessage =
  | { ready: true }
  | { failed: Record<string, unknown> }
  | { notification: { channel: string; payload: string } }
  | { id: number; result: unknown }
  | { id: number; error: Record<string, unknown> };
