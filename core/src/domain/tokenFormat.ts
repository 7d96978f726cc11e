/**
 * Machine tokens (svm_) have the shape of the Hub's keys: prefix + 32 random base62 characters + a
 * 6-character base62 CRC32 of everything before it. Malformed tokens are refused without a database
 * look-up; only the SHA-256 of a token is stored (a high-entropy secret needs no slow hash).
 */
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { sha256 } from './crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'svm_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const DISPLAY_LENGTH = 12;
const SHAPE = new RegExp(`^${PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

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

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export interface IssuedToken {
  token: string;
  hash: string;
  prefix: string;
}

export function issueMachineToken(): IssuedToken {
  const body = PREFIX + randomBase62(RANDOM_LENGTH);
  const token = body + checksum(body);
  return { token, hash: sha256(token), prefix: token.slice(0, DISPLAY_LENGTH) };
}

/** Claims to be a machine token (right prefix), well-formed or not. */
export const looksLikeMachineToken = (candidate: string) => candidate.startsWith(PREFIX);

export function isWellFormedMachineToken(candidate: string): boolean {
  return SHAPE.test(candidate) && checksum(candidate.slice(0, -CHECKSUM_LENGTH)) === candidate.slice(-CHECKSUM_LENGTH);
}
