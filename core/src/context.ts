/**
 * Everything a running Core needs, built once per process (server or CLI) and passed down:
 * configuration, database, sealer, session signing key, OIDC, the audit writer, the logger.
 */
import type { CoreConfig } from './config';
import { openDatabase, type Database, type Db } from './db/client';
import { loadSealer, loadSigningKey, type Sealer, type SigningKey } from './domain/crypto';
import { AuditWriter } from './domain/audit';
import { OidcSettings } from './domain/oidcSettings';
import { OidcVerifier } from './auth/oidc';
import type { Logger } from './log';
import { HubConnection } from './hub/connection';
import { CatalogSync } from './hub/sync';

export interface CoreContext {
  config: CoreConfig;
  database: Database;
  db: Db;
  sealer: Sealer;
  signingKey: SigningKey;
  oidcSettings: OidcSettings;
  oidcVerifier: OidcVerifier;
  audit: AuditWriter;
  log: Logger;
  hub: HubConnection;
  catalogSync: CatalogSync;
  /** Flushes the audit and closes the database. */
  close(): Promise<void>;
}

export async function createCoreContext(config: CoreConfig, log: Logger): Promise<CoreContext> {
  const database = await openDatabase(config);
  try {
    const db = database.db;
    const sealer = await loadSealer(db, config.secret);
    const signingKey = await loadSigningKey(db, sealer);
    const audit = new AuditWriter(db, log);
    const hub = new HubConnection(db, sealer, config, log);
    const catalogSync = new CatalogSync(db, hub, config.hubSyncIntervalSeconds * 1000, log);
    return {
      config,
      database,
      db,
      sealer,
      signingKey,
      oidcSettings: new OidcSettings(db, config),
      oidcVerifier: new OidcVerifier(log),
      audit,
      log,
      hub,
      catalogSync,
      async close() {
        await catalogSync.stop();
        await audit.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close().catch(() => {});
    throw err;
  }
}
