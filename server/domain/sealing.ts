/**
 * Stored secrets (registry credentials, JWT signing keys): sealed and opened with the open database's master
 * secret, each bound to its record (see server/db/sealed.ts for where the master secret lives).
 */
import { getDb } from '../db/client';
import { activeSealer, type SealedField } from '../db/sealed';

export { sealedFields, type SealedField } from '../db/sealed';

export async function encryptSecret(field: SealedField, plaintext: string): Promise<string> {
  await getDb(); // opening the database loads its master secret
  return activeSealer().seal(field, plaintext);
}

export async function decryptSecret(field: SealedField, sealed: string): Promise<string> {
  await getDb();
  return activeSealer().open(field, sealed);
}

/** Key material for another component (e.g. next-auth's AUTH_SECRET), derived from the master secret. */
export async function deriveSecret(purpose: string): Promise<string> {
  await getDb();
  return activeSealer().key(purpose).toString('base64url');
}
