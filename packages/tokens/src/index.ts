/**
 * The secrets the Hub and Core hand out: instance keys (svh_) and personal access tokens (svp_) of the Hub,
 * machine tokens (svm_) of Core. Format, like GitHub's tokens: prefix + 32 random base62 characters + a
 * 6-character base62 CRC32 of everything before it. Malformed secrets are refused without a database
 * look-up (and a scanner can tell a real one from noise); only the SHA-256 of a secret is stored (a
 * high-entropy secret needs no slow hash).
 */
import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { CHECKSUM_LENGTH, RANDOM_LENGTH, SECRET_KINDS, type SecretKind } from './shape';

export { CHECKSUM_LENGTH, RANDOM_LENGTH, SECRET_KINDS, type SecretKind } from './shape';
export { parseBearer } from './bearer';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Characters shown in listings so that people can tell secrets apart. */
export const DISPLAY_LENGTH = 12;

/** `length` random base62 characters, each equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** The base62 CRC32 of a secret's prefix and random part (its last 6 characters). */
export function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** What is stored of a secret: its SHA-256, hex. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret); // one-shot: no Hash object per call (every keyed request hashes its bearer)
}

export interface IssuedSecret {
  /** Shown once, never stored. */
  secret: string;
  hash: string;
  displayPrefix: string;
}

export function issueSecret(kind: SecretKind): IssuedSecret {
  const body = kind + randomBase62(RANDOM_LENGTH);
  const secret = body + checksum(body);
  return { secret, hash: hashSecret(secret), displayPrefix: secret.slice(0, DISPLAY_LENGTH) };
}

const SHAPE = new RegExp(`^(${SECRET_KINDS.join('|')})[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

/** The kind of a well-formed secret with a valid checksum, or null. */
export function parseSecret(candidate: string): SecretKind | null {
  const match = SHAPE.exec(candidate);
  if (!match) return null;
  const body = candidate.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === candidate.slice(-CHECKSUM_LENGTH) ? (match[1] as SecretKind) : null;
}

/** The kind a bearer token claims to be by its prefix (well-formed or not), or null. */
export function secretKindOf(candidate: string): SecretKind | null {
  return SECRET_KINDS.find((kind) => candidate.startsWith(kind)) ?? null;
}

/** Why `candidate` is not a well-formed secret of `kind` (for a 400 naming the problem), or null when it is one. */
export function describeMalformed(candidate: string, kind: SecretKind): string | null {
  if (!candidate.startsWith(kind)) return `must start with ${kind}`;
  const length = kind.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
  if (candidate.length !== length)
    return `must be ${length} characters long (${kind} + ${RANDOM_LENGTH + CHECKSUM_LENGTH} letters and digits), not ${candidate.length}`;
  if (!/^[0-9A-Za-z]+$/.test(candidate.slice(kind.length))) return `may contain only letters and digits after ${kind}`;
  if (parseSecret(candidate) !== kind) return 'has a wrong checksum: it was mistyped or cut; copy it again';
  return null;
}
