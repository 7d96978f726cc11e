/**
 * Everything a running Core needs, built once per process (server or CLI) and passed down:
 * configuration, database, sealer, session signing key, OIDC, the audit writer, the logger.
 */
import type { CoreConfig } from './config';
import { openDatabase, type Database, type Db } from './db/client';
import { loadSigningKey, prepareSealing, type MasterSecret, type Sealer, type SigningKey } from './domain/crypto';
import { AuditWriter } from './domain/audit';
import { moveCredentialLiterals } from './domain/deployments';
import { countPermanentAdmins } from './domain/users';
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
  /** The master secret's sealer and where it came from (for `core secret rotate`). */
  masterSecret: MasterSecret;
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
  const database = await openDatabase(config, (count, sample) =>
    log.warn(
      {
        data_dir: config.dataDir,
        changed: count,
        sample,
      },
      'data folder was readable by other users: now owner-only (0700/0600)',
    ),
  );
  try {
    const db = database.db;
    const masterSecret = await prepareSealing(db, config);
    const sealer = masterSecret.sealer;
    const signingKey = await loadSigningKey(db, sealer);
    if (config.temporaryAdmin) {
      const admins = await countPermanentAdmins(db);
      if (admins > 0) {
        log.warn(
          {
            permanent_admins: admins,
          },
          'permanent admins exist, yet the temporary admin is still enabled: remove SVC_TEMP_ADMIN_USERNAME and SVC_TEMP_ADMIN_PASSWORD and restart Core',
        );
      }
    }
    const moved = await moveCredentialLiterals(db, sealer);
    if (moved.length > 0) {
      log.warn(
        {
          moved: moved.map((m) => `${m.deployment}.${m.variable} -> ${m.secret}`),
        },
        'moved credential literals of deployments into secrets (values are now sealed; the deployments bind them)',
      );
    }
    const audit = new AuditWriter(db, log);
    const hub = new HubConnection(db, sealer, config, log);
    const catalogSync = new CatalogSync(db, hub, config.hubSyncIntervalSeconds * 1000, log);
    return {
      config,
      database,
      db,
      sealer,
      masterSecret,
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
