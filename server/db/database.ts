/** What opening the database answers, whichever the engine (postgres.ts, pglite.ts), and where its migrations are. */
import path from 'node:path';
import type { ReadReplicas } from './replicas';
import type { Db } from './types';

export interface Database {
  db: Db;
  /** 'pglite' also when this process reaches a running Hub's embedded database through its socket. */
  kind: 'postgres' | 'pglite';
  /** Reached through a running Hub's socket (that Hub holds the data folder). */
  throughSocket?: boolean;
  close(): Promise<void>;
  /**
   * Embedded database in a data folder, opened by this process: serve it on the folder's socket for the CLI
   * and psql while this process runs (socket.ts); answers the socket's path. Stopped by close().
   */
  share?(): Promise<string>;
  /**
   * Embedded database in a data folder: whether the demo catalog is still to be offered (the folder was
   * created as a new database and no Hub server has started on it yet), and the call that records it was.
   */
  demoCatalogPending?(): boolean;
  demoCatalogOffered?(): void;
  /** DATABASE_READ_URL: the replicas that serve catalog reads (replicas.ts). */
  replicas?: ReadReplicas;
}

export function migrationsFolder() {
  return path.join(process.cwd(), 'drizzle');
}
