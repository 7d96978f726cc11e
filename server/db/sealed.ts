/**
 * Secrets at rest, sealed with AES-256-GCM (16-byte tag, pinned both ways) under a key derived from the
 * master secret per purpose: HUB_SECRET, or one generated on first use and kept in hub_settings (then the
 * database alone protects it: set HUB_SECRET in production). Each ciphertext is bound to its record by
 * additional authenticated data "table:column:row id", so a value copied to another row does not open.
 * Formats: "v2.<iv>.<tag>.<ciphertext>" (base64url parts); "v1." is the same without the record binding,
 * still opened, and re-sealed as v2 right after migrations (resealLegacySecrets).
 * Lives beside the schema because the database layer runs that step when it opens.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { eq, like } from 'drizzle-orm';
import { config } from '../config';
import type { Db, Queryable } from './types';
import { hubSettings, signingKeys, templates } from './schema';

const TAG_BYTES = 16;

/** Where a sealed value lives: its key purpose and the record it is bound to. */
export interface SealedField {
  purpose: string;
  record: string;
}

/** Every sealed column, one definition each. */
export const sealedFields = {
  registryCredentials: (templateId: string): SealedField => ({ purpose: 'registry-credentials', record: `templates:registry_credentials_enc:${templateId}` }),
  jwtSigningKey: (kid: string): SealedField => ({ purpose: 'jwt-signing-key', record: `signing_keys:private_jwk_enc:${kid}` }),
};

let masterSecret: Promise<string> | undefined;

async function loadMasterSecret(q: Queryable): Promise<string> {
  if (config.secret) return config.secret;
  await q
    .insert(hubSettings)
    .values({ key: 'master_secret', value: randomBytes(32).toString('base64url') })
    .onConflictDoNothing();
  const [row] = await q.select().from(hubSettings).where(eq(hubSettings.key, 'master_secret'));
  if (!row) throw new Error('master secret missing after insert');
  return row.value;
}

function getMasterSecret(q: Queryable) {
  masterSecret ??= loadMasterSecret(q).catch((err) => {
    masterSecret = undefined;
    throw err;
  });
  return masterSecret;
}

export async function keyFor(q: Queryable, purpose: string): Promise<Buffer> {
  return Buffer.from(hkdfSync('sha256', await getMasterSecret(q), 'hub', purpose, 32));
}

export async function seal(q: Queryable, field: SealedField, plaintext: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await keyFor(q, field.purpose), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(field.record, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v2', ...[iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url'))].join('.');
}

export async function unseal(q: Queryable, field: SealedField, sealed: string): Promise<string> {
  const [version, iv, tag, data, extra] = sealed.split('.');
  if ((version !== 'v1' && version !== 'v2') || !iv || !tag || data === undefined || extra !== undefined) {
    throw new Error('unknown sealed secret format');
  }
  const tagBytes = Buffer.from(tag, 'base64url');
  if (tagBytes.length !== TAG_BYTES) throw new Error('sealed secret: bad tag length');
  const decipher = createDecipheriv('aes-256-gcm', await keyFor(q, field.purpose), Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
  if (version === 'v2') decipher.setAAD(Buffer.from(field.record, 'utf8'));
  decipher.setAuthTag(tagBytes);
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** Re-seals every v1 ciphertext as v2, in one transaction; a no-op once none is left. */
export async function resealLegacySecrets(db: Db) {
  await getMasterSecret(db); // before the transaction: PGlite runs one thing at a time
  await db.transaction(async (tx) => {
    const reseal = (field: SealedField, old: string) => unseal(tx, field, old).then((plain) => seal(tx, field, plain));
    const tpls = await tx
      .select({ id: templates.id, enc: templates.registryCredentialsEnc })
      .from(templates)
      .where(like(templates.registryCredentialsEnc, 'v1.%'))
      .for('update');
    for (const t of tpls) {
      const enc = await reseal(sealedFields.registryCredentials(t.id), t.enc!);
      await tx.update(templates).set({ registryCredentialsEnc: enc }).where(eq(templates.id, t.id));
    }
    const keys = await tx.select({ kid: signingKeys.kid, enc: signingKeys.privateJwkEnc }).from(signingKeys).where(like(signingKeys.privateJwkEnc, 'v1.%')).for('update');
    for (const k of keys) {
      const enc = await reseal(sealedFields.jwtSigningKey(k.kid), k.enc);
      await tx.update(signingKeys).set({ privateJwkEnc: enc }).where(eq(signingKeys.kid, k.kid));
    }
  });
}
