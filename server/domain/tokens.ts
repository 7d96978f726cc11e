/**
 * Secrets handed out by the Hub: instance keys (svh_) and personal access tokens (svp_).
 * Format, like GitHub's tokens: prefix + 32 random base62 characters + a 6-character base62 CRC32
 * of everything before it. Malformed secrets are rejected without a database look-up; only the
 * SHA-256 of a secret is stored (high-entropy secrets need no slow hash).
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** Characters shown in listings so that people can tell keys apart. */
const DISPLAY_LENGTH = 12;

export type SecretKind = 'svh_' | 'svp_';

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export interface IssuedSecret {
  secret: string;
  hash: string;
  displayPrefix: string;
}

export function issueSecret(kind: SecretKind): IssuedSecret {
  const body = kind + randomBase62(RANDOM_LENGTH);
  const secret = body + checksum(body);
  return { secret, hash: hashSecret(secret), displayPrefix: secret.slice(0, DISPLAY_LENGTH) };
}

const SHAPE = new RegExp(`^(svh_|svp_)[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

/** The kind of a well-formed secret with a valid checksum, or null. */
export function parseSecret(candidate: string): SecretKind | null {
  const match = SHAPE.exec(candidate);
  if (!match) return null;
  const body = candidate.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === candidate.slice(-CHECKSUM_LENGTH) ? (match[1] as SecretKind) : null;
}

/** Whether a bearer token claims to be one of our prefixed secrets (valid or not). */
export function secretKindOf(candidate: string): SecretKind | null {
  return candidate.startsWith('svh_') ? 'svh_' : candidate.startsWith('svp_') ? 'svp_' : null;
}
