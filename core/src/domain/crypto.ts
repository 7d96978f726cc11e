/**
 * The master secret and what hangs off it: sealing of stored secrets (@shared/seal: AES-256-GCM, format v2,
 * each value bound to its record) and the ES256 key that signs Core's session tokens.
 *
 * Where the master secret lives (docs/secrets-at-rest.md): CORE_SECRET when set; required with
 * CORE_DATABASE_URL (Core refuses to start without it, so a copy of the database alone never holds the key to
 * its own secrets); on the embedded database without CORE_SECRET, generated once and kept in the file
 * `master-secret` (0600) in CORE_DATA_DIR, never in the database. Earlier versions kept it in core_settings:
 * it moves to the file at start and leaves the database. A seal check (core_settings 'seal_check') records
 * when the database was first sealed: a different master secret is refused at start saying what to do.
 * At start, values sealed as v1 are re-sealed as v2; `core secret rotate` re-seals everything under a new secret.
 */
import { createHash, randomBytes } from 'node:crypto';
import { eq, isNotNull } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { SealedField, Sealer } from '@shared/seal';
import * as master from '@shared/seal/master';
import { settingsSealStore } from '@shared/seal/drizzle';
import { MASTER_SECRET_REQUIRED } from '../config';
import type { Db, Tx } from '../db/client';
import { hubConnection } from '../db/hubSchema';
import { secrets, settings } from '../db/schema';

export type { Sealer, SealedField } from '@shared/seal';
export type { MasterSecret } from '@shared/seal/master';
export { MasterSecretMismatch } from '@shared/seal';
export { MasterSecretRequired } from '@shared/seal/master';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const SIGNING_KEY = 'session_signing_key';

/** Every sealed column, one definition each (purposes as v1 used them, so old values still open). */
export const sealedFields = {
  sessionSigningKey: (): SealedField => ({ purpose: SIGNING_KEY, record: `core_settings:value:${SIGNING_KEY}` }),
  secret: (name: string): SealedField => ({ purpose: `secret:${name}`, record: `secrets:sealed_value:${name}` }),
  hubInstanceKey: (id: string): SealedField => ({
    purpose: 'hub_instance_key',
    record: `hub_connection:sealed_key:${id}`,
  }),
};

export interface SealingConfig {
  databaseUrl: string | null;
  dataDir: string | null;
  secret: string | null;
}

async function setting(db: Db | Tx, key: string) {
  const [row] = await db.select().from(settings).where(eq(settings.key, key));
  return row;
}

/** Core's sealed rows, and core_settings for the seal check, for @shared/seal/master. */
function store(db: Db): master.SealStore {
  return settingsSealStore(db, settings, (tx: Tx) => ({
    async sealedValues() {
      const [key] = await tx.select().from(settings).where(eq(settings.key, SIGNING_KEY)).for('update');
      const secretRows = await tx.select({ name: secrets.name, enc: secrets.sealedValue }).from(secrets).for('update');
      const hubRows = await tx
        .select({ id: hubConnection.id, enc: hubConnection.sealedKey })
        .from(hubConnection)
        .where(isNotNull(hubConnection.sealedKey))
        .for('update');
      return [
        ...(key ? [key] : []).map((k) => ({
          field: sealedFields.sessionSigningKey(),
          sealed: k.value,
          write: async (value: string) => {
            await tx.update(settings).set({ value }).where(eq(settings.key, SIGNING_KEY));
          },
        })),
        ...secretRows.map((r) => ({
          field: sealedFields.secret(r.name),
          sealed: r.enc,
          write: async (sealedValue: string) => {
            await tx.update(secrets).set({ sealedValue }).where(eq(secrets.name, r.name));
          },
        })),
        ...hubRows.map((r) => ({
          field: sealedFields.hubInstanceKey(r.id),
          sealed: r.enc!,
          write: async (sealedKey: string) => {
            await tx.update(hubConnection).set({ sealedKey }).where(eq(hubConnection.id, r.id));
          },
        })),
      ];
    },
    async probe() {
      const key = await setting(tx, SIGNING_KEY);
      return key && { field: sealedFields.sessionSigningKey(), sealed: key.value, at: key.updatedAt };
    },
  }));
}

/**
 * At start, after migrations: loads and verifies the master secret, re-seals v1 values as v2, moves a master
 * secret out of the database (@shared/seal/master). Throws MasterSecretRequired / MasterSecretMismatch.
 */
export function prepareSealing(db: Db, config: SealingConfig): Promise<master.MasterSecret> {
  return master.openMasterSecret(store(db), {
    domain: 'core',
    secretVar: 'CORE_SECRET',
    secret: config.secret,
    site: config.databaseUrl
      ? { kind: 'server', refusal: MASTER_SECRET_REQUIRED }
      : { kind: 'embedded', dataDir: config.dataDir },
    service: 'Core',
    table: 'core_settings',
  });
}

/**
 * Re-seals every stored secret under `next` in one transaction. With the generated secret the data folder's file
 * is replaced; with CORE_SECRET every Core process must be restarted with the new value.
 */
export async function rotateMasterSecret(db: Db, current: master.MasterSecret, next: string) {
  const { resealed, secretFile } = await master.rotateMasterSecret(store(db), current, next);
  return { resealed, secretFile };
}

async function getOrCreateSetting(db: Db, key: string, create: () => Promise<string> | string): Promise<string> {
  const existing = await setting(db, key);
  if (existing) return existing.value;
  await db
    .insert(settings)
    .values({ key, value: await create() })
    .onConflictDoNothing();
  const row = await setting(db, key);
  if (!row) throw new Error(`setting ${key} missing after insert`);
  return row.value; // another process may have won the race: everyone uses the stored one
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** The ES256 key pair for session tokens, generated once and stored sealed: every process shares it. */
export async function loadSigningKey(db: Db, sealer: Sealer): Promise<SigningKey> {
  const sealed = await getOrCreateSetting(db, SIGNING_KEY, async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: randomBytes(8).toString('hex') };
    return sealer.seal(sealedFields.sessionSigningKey(), JSON.stringify(jwk));
  });
  const jwk = JSON.parse(sealer.open(sealedFields.sessionSigningKey(), sealed)) as JWK & { kid: string };
  const { d: _d, ...pub } = jwk;
  return {
    kid: jwk.kid,
    privateKey: (await importJWK(jwk, 'ES256')) as CryptoKey,
    publicKey: (await importJWK(pub, 'ES256')) as CryptoKey,
  };
}
