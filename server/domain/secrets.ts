/**
 * Stored secrets (registry credentials, JWT signing keys): sealed and opened on the process database,
 * each bound to its record (see server/db/sealed.ts for the format and the key derivation).
 */
import { getDb } from '../db/client';
import { keyFor, seal, unseal, type SealedField } from '../db/sealed';

export { sealedFields, type SealedField } from '../db/sealed';

export async function encryptSecret(field: SealedField, plaintext: string): Promise<string> {
  return seal(await getDb(), field, plaintext);
}

export async function decryptSecret(field: SealedField, sealed: string): Promise<string> {
  return unseal(await getDb(), field, sealed);
}

/** Key material for another component (e.g. next-auth's AUTH_SECRET), derived from the master secret. */
export async function deriveSecret(purpose: string): Promise<string> {
  return (await keyFor(await getDb(), purpose)).toString('base64url');
}
