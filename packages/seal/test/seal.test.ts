import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createSealCheck,
  createSealer,
  generateMasterSecret,
  isLegacy,
  MasterSecretMismatch,
  reseal,
  SealedFormatError,
  UnsealError,
  verifySealCheck,
} from '../src/index';

const field = { purpose: 'registry-credentials', record: 'templates:registry_credentials_enc:t1' };

/** The v1 format as both services wrote it: no associated data. */
function sealV1(master: string, domain: string, purpose: string, plaintext: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(hkdfSync('sha256', master, domain, purpose, 32)), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url'))].join('.');
}

describe('sealer', () => {
  const sealer = createSealer('master-1', 'hub');

  it('seals as v2 and opens it again on the same record', () => {
    const sealed = sealer.seal(field, 'p@ss');
    expect(sealed).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('p@ss');
    expect(isLegacy(sealed)).toBe(false);
    expect(sealer.open(field, sealed)).toBe('p@ss');
  });

  it('opens a known v2 vector (the Hub format before this package)', () => {
    // Sealed by server/db/sealed.ts with master "master-1" for `field`.
    const iv = Buffer.alloc(12, 7);
    const key = Buffer.from(hkdfSync('sha256', 'master-1', 'hub', field.purpose, 32));
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
    cipher.setAAD(Buffer.from(field.record));
    const data = Buffer.concat([cipher.update('known', 'utf8'), cipher.final()]);
    const vector = ['v2', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
    expect(sealer.open(field, vector)).toBe('known');
  });

  it('refuses a v2 value moved to another record', () => {
    const sealed = sealer.seal(field, 'p@ss');
    expect(() => sealer.open({ ...field, record: 'templates:registry_credentials_enc:t2' }, sealed)).toThrow(
      UnsealError,
    );
  });

  it('refuses another purpose, another domain and another master secret', () => {
    const sealed = sealer.seal(field, 'x');
    expect(() => sealer.open({ ...field, purpose: 'jwt-signing-key' }, sealed)).toThrow(UnsealError);
    expect(() => createSealer('master-1', 'core').open(field, sealed)).toThrow(UnsealError);
    expect(() => createSealer('master-2', 'hub').open(field, sealed)).toThrow(UnsealError);
  });

  it('reads v1 (not bound to the record) and re-seals it as v2', () => {
    const old = sealV1('master-1', 'hub', field.purpose, 'legacy');
    expect(isLegacy(old)).toBe(true);
    expect(sealer.open(field, old)).toBe('legacy');
    const v2 = reseal(sealer, sealer, field, old);
    expect(v2.startsWith('v2.')).toBe(true);
    expect(sealer.open(field, v2)).toBe('legacy');
  });

  it('pins the tag length and the format', () => {
    const [v, iv, tag, data] = sealer.seal(field, 'x').split('.');
    const shortTag = Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => sealer.open(field, [v, iv, shortTag, data].join('.'))).toThrow(SealedFormatError);
    expect(() => sealer.open(field, ['v3', iv, tag, data].join('.'))).toThrow(SealedFormatError);
    expect(() => sealer.open(field, [v, iv, tag, data, 'x'].join('.'))).toThrow(SealedFormatError);
    expect(() => sealer.open(field, 'plain text')).toThrow(SealedFormatError);
  });

  it('detects a flipped ciphertext bit', () => {
    const [v, iv, tag, data] = sealer.seal(field, 'abcdef').split('.');
    const bytes = Buffer.from(data!, 'base64url');
    bytes[0]! ^= 1;
    expect(() => sealer.open(field, [v, iv, tag, bytes.toString('base64url')].join('.'))).toThrow(UnsealError);
  });

  it('rotates: a value re-sealed under a new secret opens only with it', () => {
    const next = createSealer('master-2', 'hub');
    const rotated = reseal(sealer, next, field, sealer.seal(field, 'v'));
    expect(next.open(field, rotated)).toBe('v');
    expect(() => sealer.open(field, rotated)).toThrow(UnsealError);
  });

  it('derives stable keys and keyed digests per purpose', () => {
    expect(sealer.key('a').equals(createSealer('master-1', 'hub').key('a'))).toBe(true);
    expect(sealer.key('a').equals(sealer.key('b'))).toBe(false);
    expect(sealer.mac('a', 'x')).toBe(createSealer('master-1', 'hub').mac('a', 'x'));
    expect(sealer.mac('a', 'x')).not.toBe(createSealer('master-2', 'hub').mac('a', 'x'));
  });

  it('generates distinct 32-byte master secrets and refuses an empty one', () => {
    const a = generateMasterSecret();
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(generateMasterSecret());
    expect(() => createSealer('', 'hub')).toThrow(/empty/);
  });
});

describe('seal check', () => {
  it('passes with the secret it was made with', () => {
    const sealer = createSealer('s1', 'core');
    const check = createSealCheck(sealer, new Date('2026-01-02T03:04:05Z'));
    expect(verifySealCheck(sealer, check, 'CORE_SECRET')).toEqual({ firstSealed: '2026-01-02T03:04:05.000Z' });
  });

  it('names the variable, the date and what to do with another secret', () => {
    const check = createSealCheck(createSealer('s1', 'core'), new Date('2026-01-02T03:04:05Z'));
    const run = () => verifySealCheck(createSealer('s2', 'core'), check, 'CORE_SECRET');
    expect(run).toThrow(MasterSecretMismatch);
    expect(run).toThrow(
      'CORE_SECRET does not match the secret this database was sealed with (first sealed 2026-01-02); ' +
        'start with the original secret, or see README: rotating the master secret',
    );
  });

  it('refuses a damaged check value as such, not as a mismatch', () => {
    const sealer = createSealer('s1', 'core');
    expect(() => verifySealCheck(sealer, 'not json', 'X')).toThrow(SealedFormatError);
    expect(() => verifySealCheck(sealer, '{"first_sealed":"2026-01-01"}', 'X')).toThrow(SealedFormatError);
  });
});
