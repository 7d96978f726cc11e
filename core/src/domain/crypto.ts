/**
 * The master secret and what hangs off it: AES-256-GCM sealing of stored secrets and the ES256 key
 * that signs Core's session tokens. The master secret is CORE_SECRET, or one generated on first use
 * and kept in core_settings (then the database alone protects it: set CORE_SECRET in production).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../db/client';
import { settings } from '../db/schema';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function getOrCreateSetting(db: Db, key: string, create: () => Promise<string> | string): Promise<string> {
  const [existing] = await db.select().from(settings).where(eq(settings.key, key));
  if (existing) return existing.value;
  await db.insert(settings).values({ key, value: await create() }).onConflictDoNothing();
  const [row] = await db.select().from(settings).where(eq(settings.key, key));
  if (!row) throw new Error(`setting ${key} missing after insert`);
  return row.value; // another process may have won the race: everyone uses the stored one
}

export interface Sealer {
  seal(purpose: string, plaintext: string): string;
  open(purpose: string, sealed: string): string;
  /** A keyed digest under a key derived from the master secret (not reversible, not guessable offline). */
  mac(purpose: string, data: string): string;
}

export function createSealer(masterSecret: string): Sealer {
  const keyFor = (purpose: string) => Buffer.from(hkdfSync('sha256', masterSecret, 'core', purpose, 32));
  return {
    /** "v1.<iv>.<tag>.<ciphertext>", base64url parts; the purpose binds a value to its use. */
    seal(purpose, plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(purpose), iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    open(purpose, sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown sealed value format');
      const decipher = createDecipheriv('aes-256-gcm', keyFor(purpose), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    mac(purpose, data) {
      return createHmac('sha256', keyFor(purpose)).update(data).digest('base64url');
    },
  };
}

export async function loadSealer(db: Db, configured: string | null): Promise<Sealer> {
  const master = configured ?? (await getOrCreateSetting(db, 'master_secret', () => randomBytes(32).toString('base64url')));
  return createSealer(master);
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** The ES256 key pair for session tokens, generated once and stored sealed: every process shares it. */
export async function loadSigningKey(db: Db, sealer: Sealer): Promise<SigningKey> {
  const sealed = await getOrCreateSetting(db, 'session_signing_key', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: randomBytes(8).toString('hex') };
    return sealer.seal('session_signing_key', JSON.stringify(jwk));
  });
  const jwk = JSON.parse(sealer.open('session_signing_key', sealed)) as JWK & { kid: string };
  const { d: _d, ...pub } = jwk;
  return {
    kid: jwk.kid,
    privateKey: (await importJWK(jwk, 'ES256')) as CryptoKey,
    publicKey: (await importJWK(pub, 'ES256')) as CryptoKey,
  };
}
