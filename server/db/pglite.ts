/**
 * The embedded database (PGlite) of a data folder, or in memory: the folder locked and kept owner-only, opened on
 * a thread of its own, migrated; when a running Hub holds the folder, reached through its socket (postgres.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DataFolderInUse, lockDataFolder, preparePrivateDataFolder, restrictDataFolder } from '@shared/data-folder';
import { openInMemory } from '@shared/pglite-memory';
import type { PGlite } from '@electric-sql/pglite';
import { config } from '../config';
import { logger } from '../log';
import { migrationsFolder, type Database } from './database';
import { EmbeddedEngine } from './embedded-engine';
import { bump, bumpAll, INVALIDATION_CHANNEL } from './invalidation';
import { openPostgres } from './postgres';
import * as schema from './schema';
import { MasterSecretMismatch, prepareSealing } from './sealed';
import type { SharedDatabase } from './socket';
import { embeddedSocketPath } from './socket-path';
import { statementLogger } from './statements';
import type { Db } from './types';

/** The refusal when a live process holds the data folder (a running Hub, or another CLI command). */
const inUseMessage = (dir: string, holder: number) =>
  `The embedded database in ${dir} is in use by process ${holder}. ` +
  'Only one Hub process may open it; stop that process or set DATABASE_URL to use PostgreSQL.';

/**
 * PGlite has no lock of its own on its data directory (two processes opening it would corrupt it), and writes
 * its files 0666 under the process umask: owner-only umask first, the folder narrowed, then the lock.
 */
function lockDataDir(dir: string) {
  preparePrivateDataFolder(dir, (count, sample) =>
    logger.warn(
      { data_dir: dir, changed: count, sample },
      'data folder was readable by other users: now owner-only (0700/0600)',
    ),
  );
  return lockDataFolder(dir, { lockFile: 'hub.lock', inUseMessage });
}

/** Written when a data folder becomes a new database; removed once a Hub server has offered the demo catalog. */
const DEMO_PENDING_FILE = 'hub-demo-catalog-pending';

/**
 * The embedded database of a data folder. When a running Hub holds the folder, this process (the CLI)
 * reaches the same database through the socket that Hub serves in the folder (socket.ts).
 */
export async function openEmbedded(dataDir: string): Promise<Database> {
  if (dataDir === 'memory://') return openPglite(undefined, () => {});
  const dir = path.resolve(dataDir);
  let release: () => void;
  try {
    release = lockDataDir(dir);
  } catch (err) {
    if (!(err instanceof DataFolderInUse) || !fs.existsSync(embeddedSocketPath(dir))) throw err;
    try {
      return await openPostgres('', { socketDir: dir });
    } catch (socketErr) {
      if (socketErr instanceof MasterSecretMismatch) throw socketErr;
      // A holder that does not share the folder (another CLI command), or a socket left by a crash.
      throw new DataFolderInUse(dir, err.holder, inUseMessage(dir, err.holder), socketErr);
    }
  }
  fs.rmSync(embeddedSocketPath(dir), { force: true }); // a socket left by a Hub that was killed
  return openPglite(dir, release);
}

async function openPglite(dir: string | undefined, release: () => void): Promise<Database> {
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  // Always a path to the file, never the folder (`dir && …` could be): Next's build traces what fs.existsSync reads
  // below, and a folder under the working directory reads to it as "the whole project".
  const pendingFile = dir === undefined ? undefined : path.join(dir, DEMO_PENDING_FILE);
  let shared: SharedDatabase | undefined;
  let client: PGlite | EmbeddedEngine | undefined;
  try {
    const isNew = dir !== undefined && !fs.existsSync(path.join(dir, 'PG_VERSION'));
    // A data folder: on a thread of its own, so that no statement stops this one (embedded-engine.ts).
    client = dir
      ? await EmbeddedEngine.open(dir, {
          statementTimeoutMs: config.databaseStatementTimeoutMs,
          onRestart: (owner, reason) => {
            logger.error(
              { data_dir: dir, statement_of: owner === 0 ? 'hub' : 'socket client', reason },
              'embedded database restarted: a statement ran past HUB_DB_STATEMENT_TIMEOUT_MS (committed changes are kept)',
            );
            shared?.restarted(owner, reason);
            bumpAll();
          },
        })
      : await openInMemory({
          // Tests (tests/global-setup.ts): a migrated snapshot instead of initdb and every migration per database.
          snapshot: config.testPgliteSnapshot,
          extensions: { pg_trgm: (await import('@electric-sql/pglite/contrib/pg_trgm')).pg_trgm },
        });
    if (isNew && pendingFile) fs.writeFileSync(pendingFile, '');
    const migrating = drizzle(client as PGlite, { schema });
    await migrate(migrating, { migrationsFolder: migrationsFolder() });
    await prepareSealing(migrating as unknown as Db, { kind: 'embedded', dir });
    if (dir) restrictDataFolder(dir); // PGlite creates its files 0666 whatever the umask (data-folder package)
  } catch (err) {
    await client?.close().catch(() => {});
    release();
    throw err;
  }
  const pg = client;
  return {
    db: drizzle(pg as PGlite, { schema, logger: statementLogger('primary') }) as unknown as Db,
    kind: 'pglite',
    close: async () => {
      await shared?.close();
      await pg.close();
      release();
    },
    ...(pg instanceof EmbeddedEngine &&
      dir && {
        share: async () => {
          // The Hub's own commits' notifications; a socket client's are read from its answers (socket.ts).
          await pg.listen(INVALIDATION_CHANNEL, bump);
          const { shareEmbeddedDatabase } = await import('./socket');
          shared ??= await shareEmbeddedDatabase(pg, dir, {
            onNotification: (channel, topic) => channel === INVALIDATION_CHANNEL && bump(topic),
          });
          return shared.path;
        },
        demoCatalogPending: () => fs.existsSync(pendingFile!),
        demoCatalogOffered: () => fs.rmSync(pendingFile!, { force: true }),
      }),
  };
}
