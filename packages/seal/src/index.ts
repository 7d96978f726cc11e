/**
 * Secrets at rest, sealed with AES-256-GCM (16-byte tag, pinned both ways) under a key derived (HKDF-SHA256)
 * from a master secret per purpose. Each ciphertext is bound to its record by additional authenticated data
 * (e.g. "templates:registry_credentials_enc:<id>"), so a value copied to another row does not open.
 *
 * Formats (base64url parts): "v2.<iv>.<tag>.<ciphertext>"; "v1." is the same without the record binding, still
 * opened so that a service can re-seal its old rows as v2 (isLegacy tells which).
 *
 * A check value ("seal check") records when a database was first sealed and under which secret: a service
 * verifies it at start and answers a wrong master secret with a message saying what to do (MasterSecretMismatch).
 *
 * No dependency on either service: both the Hub and Core use it.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const TAG_BYTES = 16;
const IV_BYTES = 12;

/** Where a sealed value lives: its key purpose and the record it is bound to. */
export interface SealedField {
  purpose: string;
  record: string;
}

/** Not a sealed value of a known format (a damaged or foreign value). */
export class SealedFormatError extends Error {}

/** The value did not open: sealed under another master secret, or moved from another record, or altered. */
export class UnsealError extends Error {}

export interface Sealer {
  /** Seals as v2, bound to field.record. */
  seal(field: SealedField, plaintext: string): string;
  /** Opens v2 (bound to field.record) and v1 (bound to nothing but its purpose). */
  open(field: SealedField, sealed: string): string;
  /** The key for a purpose (key material for another component, e.g. next-auth's secret). */
  key(purpose: string): Buffer;
  /** A keyed digest under the purpose's key: not reversible, not guessable offline. */
  mac(purpose: string, data: string): string;
}

/**
 * A sealer for one master secret. `domain` separates services' keys (HKDF salt: "hub", "core"); it must never
 * change for a service, or its stored values no longer open.
 */
export function createSealer(masterSecret: string, domain: string): Sealer {
  if (!masterSecret) throw new Error('the master secret is empty');
  const keys = new Map<string, Buffer>();
  const key = (purpose: string) => {
    let k = keys.get(purpose);
    if (!k) keys.set(purpose, (k = Buffer.from(hkdfSync('sha256', masterSecret, domain, purpose, 32))));
    return k;
  };
  return {
    seal(field, plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key(field.purpose), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(field.record, 'utf8'));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v2', ...[iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url'))].join('.');
    },
    open(field, sealed) {
      const [version, iv, tag, data, extra] = sealed.split('.');
      if ((version !== 'v1' && version !== 'v2') || !iv || !tag || data === undefined || extra !== undefined) {
        throw new SealedFormatError('unknown sealed secret format');
      }
      const tagBytes = Buffer.from(tag, 'base64url');
      const ivBytes = Buffer.from(iv, 'base64url');
      if (tagBytes.length !== TAG_BYTES) throw new SealedFormatError('sealed secret: bad tag length');
      if (ivBytes.length !== IV_BYTES) throw new SealedFormatError('sealed secret: bad nonce length');
      const decipher = createDecipheriv('aes-256-gcm', key(field.purpose), ivBytes, { authTagLength: TAG_BYTES });
      if (version === 'v2') decipher.setAAD(Buffer.from(field.record, 'utf8'));
      decipher.setAuthTag(tagBytes);
      try {
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch (err) {
        const message = `the sealed value of ${field.record} did not open (another master secret?)`;
        throw new UnsealError(message, { cause: err });
      }
    },
    key: (purpose) => Buffer.from(key(purpose)),
    mac: (purpose, data) => createHmac('sha256', key(purpose)).update(data).digest('base64url'),
  };
}

/** Sealed in the old format (v1, not bound to its record): to be re-sealed. */
export function isLegacy(sealed: string): boolean {
  return sealed.startsWith('v1.');
}

/** A new random master secret (32 bytes, base64url). */
export function generateMasterSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** How to make a master secret, for messages that ask the operator for one. */
export const HOW_TO_MAKE_A_SECRET = 'make one with: openssl rand -base64 32';

/**
 * The refusal of a service on a database server without its master secret in the environment. `service` names
 * the service ("the Hub", "Core"), `table` its settings table (where earlier versions kept a generated secret).
 */
export function masterSecretRequiredMessage(o: {
  secretVar: string;
  urlVar: string;
  table: string;
  service: string;
}): string {
  return (
    `${o.urlVar} is set (a database server) but ${o.secretVar} is not: the master secret that seals stored secrets ` +
    `must come from the environment, never from the database it protects; ${HOW_TO_MAKE_A_SECRET} and set it as ` +
    `${o.secretVar}. Upgrading an install where ${o.service} generated its secret into the database: set ` +
    `${o.secretVar} to the output of psql "$${o.urlVar}" -Atc ` +
    `"select value from ${o.table} where key = 'master_secret'" ` +
    `and start: ${o.service} then deletes it from the database`
  );
}

const CHECK_FIELD: SealedField = { purpose: 'seal-check', record: 'seal-check' };

/** The stored check value: when the database was first sealed, and a value sealed under its master secret. */
export function createSealCheck(sealer: Sealer, firstSealed: Date = new Date()): string {
  const at = firstSealed.toISOString();
  return JSON.stringify({ first_sealed: at, check: sealer.seal(CHECK_FIELD, at) });
}

/** The master secret in use does not match the one the database was sealed with. */
export class MasterSecretMismatch extends Error {
  constructor(
    readonly secretName: string,
    readonly firstSealed: string | null,
  ) {
    super(
      `${secretName} does not match the secret this database was sealed with` +
        `${firstSealed ? ` (first sealed ${firstSealed.slice(0, 10)})` : ''}; ` +
        'start with the original secret, or see README: rotating the master secret',
    );
  }
}

/**
 * Verifies a stored check value against the sealer in use. `secretName` names where the secret came from in the
 * message (e.g. "CORE_SECRET"). Throws MasterSecretMismatch when it does not match.
 */
export function verifySealCheck(sealer: Sealer, stored: string, secretName: string): { firstSealed: string } {
  let parsed: { first_sealed?: unknown; check?: unknown };
  try {
    parsed = JSON.parse(stored) as typeof parsed;
  } catch {
    throw new SealedFormatError('the stored seal check is not JSON');
  }
  const firstSealed = typeof parsed.first_sealed === 'string' ? parsed.first_sealed : null;
  if (!firstSealed || typeof parsed.check !== 'string') throw new SealedFormatError('the stored seal check is damaged');
  let opened: string;
  try {
    opened = sealer.open(CHECK_FIELD, parsed.check);
  } catch (err) {
    if (err instanceof UnsealError) throw new MasterSecretMismatch(secretName, firstSealed);
    throw err;
  }
  if (opened !== firstSealed) throw new MasterSecretMismatch(secretName, firstSealed);
  return { firstSealed };
}

/**
 * Re-seals one value under another sealer (rotation) or as v2 (legacy): opens with `from`, seals with `to`.
 */
export function reseal(from: Sealer, to: Sealer, field: SealedField, sealed: string): string {
  return to.seal(field, from.open(field, sealed));
}
