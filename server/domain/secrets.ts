/**
 * Encryption of stored secrets (registry credentials, JWT signing keys) with AES-256-GCM under a key
 * derived from the master secret: HUB_SECRET, or one generated on first use and kept in hub_settings
 * (then the database alone protects it: set HUB_SECRET in production).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { config } from '../config';
import { getDb } from '../db/client';
import { hubSettings } from '../db/schema';

let masterSecret: Promise<string> | undefined;

async function loadMasterSecret(): Promise<string> {
  if (config.secret) return config.secret;
  const db = await getDb();
  await db
    .insert(hubSettings)
    .values({ key: 'master_secret', value: randomBytes(32).toString('base64url') })
    .onConflictDoNothing();
  const [row] = await db.select().from(hubSettings).where(eq(hubSettings.key, 'master_secret'));
  if (!row) throw new Error('master secret missing after insert');
  return row.value;
}

function getMasterSecret() {
  masterSecret ??= loadMasterSecret().catch((err) => {
    masterSecret = undefined;
    throw err;
  });
  return masterSecret;
}

async function keyFor(purpose: string): Promise<Buffer> {
  return Buffer.from(hkdfSync('sha256', await getMasterSecret(), 'hub', purpose, 32));
}

/** "v1.<iv>.<tag>.<ciphertext>", base64url parts. */
export async function encryptSecret(purpose: string, plaintext: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await keyFor(purpose), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export async function decryptSecret(purpose: string, sealed: string): Promise<string> {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown sealed secret format');
  const decipher = createDecipheriv('aes-256-gcm', await keyFor(purpose), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** Key material for another component (e.g. next-auth's AUTH_SECRET), derived from the master secret. */
export async function deriveSecret(purpose: string): Promise<string> {
  return (await keyFor(purpose)).toString('base64url');
}
