/**
 * Everything a running Core needs, built once per process (server or CLI) and passed down:
 * configuration, database, sealer, session signing key, OIDC, the audit writer, the logger.
 */
import type { CoreConfig } from './config';
import { openDatabase, type Database, type Db } from './db/client';
import { loadSigningKey, prepareSealing, type MasterSecret, type Sealer, type SigningKey } from './domain/crypto';
import { AuditWriter } from './domain/audit';
import { LoginPacer } from './domain/loginPacing';
import { moveCredentialValues } from './domain/credentialLiterals';
import { countPermanentAdmins } from './domain/users';
import { OidcSettings } from './domain/oidcSettings';
import { OidcVerifier } from './auth/oidc';
import type { Logger } from './log';
import { HubConnection } from './hub/connection';
import { CatalogSync } from './hub/sync';
import { Reconciler, runtimeInstanceId } from './domain/reconciler';
import { DockerRuntime } from './runtime/docker';
import { meteredRuntime } from './runtime/metered';
import type { Runtime } from './runtime/runtime';

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
  /** This process's line of strange clients' sign-ins per username. */
  loginPacer: LoginPacer;
  /** Converges the container engine to the deployments (idle with CORE_RUNTIME=none); the server starts its loop. */
  reconciler: Reconciler;
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
    // Literals carrying a credential (by value or by name) into secrets, the activity that quoted them redacted.
    const carried = await moveCredentialValues(db, sealer);
    if (carried.moved.length > 0 || carried.redacted > 0) {
      log.warn(
        {
          moved: carried.moved.map((m) => `${m.deployment}.${m.variable} -> ${m.secret}`),
          redacted_activity_entries: carried.redacted,
        },
        'moved credential literals of deployments into secrets (by name or by value; values are now sealed, ' +
          'the deployments bind them) and redacted the activity entries that quoted them',
      );
    }
    const audit = new AuditWriter(db, log);
    const hub = new HubConnection(db, sealer, config, log);
    const catalogSync = new CatalogSync(db, hub, config.hubSyncIntervalSeconds * 1000, log);
    const reconciler = new Reconciler({
      db,
      database,
      sealer,
      settings: config.runtime,
      log,
      runtime: await chooseRuntime(config, log),
      instanceId: await runtimeInstanceId(db),
    });
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
      loginPacer: new LoginPacer(db, config.loginPacing),
      reconciler,
      async close() {
        await catalogSync.stop();
        await reconciler.stop();
        await audit.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close().catch(() => {});
    throw err;
  }
}

/**
 * CORE_RUNTIME: docker → the engine at DOCKER_HOST (down now is fine: the loop converges when it answers);
 * none → desired state only; unset → docker when an engine answers at start, else none, said once.
 */
async function chooseRuntime(config: CoreConfig, log: Logger): Promise<Runtime | null> {
  const settings = config.runtime;
  if (settings.mode === 'none') return null;
  // Counted at the one door to the engine (core_engine_calls_total / _errors_total in /metrics).
  const runtime = meteredRuntime(new DockerRuntime(settings));
  if (settings.mode === 'docker') return runtime;
  try {
    await Promise.race([
      runtime.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s')), 2000).unref()),
    ]);
    log.info({ engine: runtime.description }, 'container engine found: Core runs its deployments');
    return runtime;
  } catch (err) {
    log.info(
      { engine: runtime.description, error: err instanceof Error ? err.message : String(err) },
      'no container engine answered: deployments are desired state only. To run them, start Docker or ' +
        '`podman system service --time=0 unix:///path/to.sock`, set DOCKER_HOST (and CORE_RUNTIME=docker) and restart Core',
    );
    return null;
  }
}
