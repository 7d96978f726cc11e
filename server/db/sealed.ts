/**
 * Secrets at rest: every sealed column of the Hub, sealed with @shared/seal (AES-256-GCM, format v2, bound to its
 * record) under a key derived from the master secret per purpose.
 *
 * Where the master secret lives (@shared/seal/master, docs/secrets-at-rest.md): HUB_SECRET when set; required with
 * DATABASE_URL (a database server), so that a copy of the database alone never holds the key to its own secrets;
 * on the embedded database without HUB_SECRET, generated once into the data folder's `master-secret` file (0600),
 * never into the database (earlier versions kept it in hub_settings: it moves out at start). A seal check in
 * hub_settings ('seal_check') makes a wrong secret a clear refusal at start. The database layer runs
 * prepareSealing right after migrations (client.ts): v1 values are re-sealed as v2 there.
 * `hub secret rotate` re-seals everything under a new secret in one transaction (rotateMasterSecret).
 */
import { eq, isNotNull } from 'drizzle-orm';
import { masterSecretRequiredMessage, type SealedField, type Sealer } from '@shared/seal';
import * as master from '@shared/seal/master';
import { settingsSealStore } from '@shared/seal/drizzle';
import { config } from '../config';
import type { Db, Tx } from './types';
import { hubSettings, signingKeys, templates } from './schema';

export type { SealedField } from '@shared/seal';
export { MasterSecretMismatch } from '@shared/seal';
export { MasterSecretRequired } from '@shared/seal/master';

/** Every sealed column, one definition each. */
export const sealedFields = {
  registryCredentials: (templateId: string): SealedField => ({
    purpose: 'registry-credentials',
    record: `templates:registry_credentials_enc:${templateId}`,
  }),
  jwtSigningKey: (kid: string): SealedField => ({
    purpose: 'jwt-signing-key',
    record: `signing_keys:private_jwk_enc:${kid}`,
  }),
};

export const MASTER_SECRET_REQUIRED = masterSecretRequiredMessage({
  secretVar: 'HUB_SECRET',
  urlVar: 'DATABASE_URL',
  table: 'hub_settings',
  service: 'the Hub',
});

/** Where the database lives, which decides where its master secret may come from. */
export type SealingSite = { kind: 'server' } | { kind: 'embedded'; dir?: string };

/**
 * The open database's master secret, on globalThis like the database itself (client.ts): in `npm start` the
 * edge's code and Next.js's bundled copy of it are two module instances in one process, and both open sealed
 * values (Next serves the JWKS and the sign-in, which read the signing key).
 */
const sealing = globalThis as unknown as { __hubMasterSecret?: master.MasterSecret };

/** The sealer of the open database (prepareSealing ran when it opened). */
export function activeSealer(): Sealer {
  if (!sealing.__hubMasterSecret) throw new Error('the database is not open: sealing needs its master secret');
  return sealing.__hubMasterSecret.sealer;
}

/** The Hub's sealed rows, and hub_settings for the seal check, for @shared/seal/master. */
function store(db: Db): master.SealStore {
  return settingsSealStore(db, hubSettings, (tx: Tx) => ({
    async sealedValues() {
      const tpls = await tx
        .select({ id: templates.id, enc: templates.registryCredentialsEnc })
        .from(templates)
        .where(isNotNull(templates.registryCredentialsEnc))
        .for('update');
      const keys = await tx
        .select({ kid: signingKeys.kid, enc: signingKeys.privateJwkEnc })
        .from(signingKeys)
        .for('update');
      return [
        ...tpls.map((t) => ({
          field: sealedFields.registryCredentials(t.id),
          sealed: t.enc!,
          write: async (enc: string) => {
            await tx.update(templates).set({ registryCredentialsEnc: enc }).where(eq(templates.id, t.id));
          },
        })),
        ...keys.map((k) => ({
          field: sealedFields.jwtSigningKey(k.kid),
          sealed: k.enc,
          write: async (enc: string) => {
            await tx.update(signingKeys).set({ privateJwkEnc: enc }).where(eq(signingKeys.kid, k.kid));
          },
        })),
      ];
    },
    async probe() {
      const [oldest] = await tx.select().from(signingKeys).orderBy(signingKeys.createdAt).limit(1);
      if (!oldest) return undefined;
      return { field: sealedFields.jwtSigningKey(oldest.kid), sealed: oldest.privateJwkEnc, at: oldest.createdAt };
    },
  }));
}

/**
 * Right after migrations: loads and verifies the master secret, re-seals v1 values, moves a master secret out of
 * the database. Throws MasterSecretRequired / MasterSecretMismatch.
 */
export async function prepareSealing(db: Db, site: SealingSite) {
  sealing.__hubMasterSecret = await master.openMasterSecret(store(db), {
    domain: 'hub',
    secretVar: 'HUB_SECRET',
    secret: config.secret,
    site:
      site.kind === 'server'
        ? { kind: 'server', refusal: MASTER_SECRET_REQUIRED }
        : { kind: 'embedded', dataDir: site.dir },
    service: 'Hub',
    table: 'hub_settings',
  });
}

/** Re-seals every v1 value as v2, in one transaction; a no-op once none is left. */
export async function resealLegacySecrets(db: Db) {
  const sealer = activeSealer();
  await store(db).transaction((tx) => master.resealLegacy(tx, sealer));
}

/**
 * Re-seals every stored secret under `next` in one transaction (@shared/seal/master). With the generated secret the
 * data folder's file is replaced; with HUB_SECRET every Hub process must be restarted with the new value.
 */
export async function rotateMasterSecret(
  db: Db,
  next: string,
): Promise<{ resealed: number; secretFile: string | null }> {
  const current = sealing.__hubMasterSecret;
  if (!current) throw new Error('the database is not open');
  const result = await master.rotateMasterSecret(store(db), current, next);
  sealing.__hubMasterSecret = result.next;
  return { resealed: result.resealed, secretFile: result.secretFile };
}
