import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checksum,
  describeMalformed,
  hashSecret,
  issueSecret,
  parseSecret,
  SECRET_KINDS,
  secretKindOf,
} from '../src/index';

describe('the token format', () => {
  it('issues prefix + 32 base62 + a 6-character checksum, its SHA-256 and a display prefix', () => {
    for (const kind of SECRET_KINDS) {
      const { secret, hash, displayPrefix } = issueSecret(kind);
      expect(secret).toMatch(new RegExp(`^${kind}[0-9A-Za-z]{38}$`));
      expect(secret.slice(-6)).toBe(checksum(secret.slice(0, -6)));
      expect(hash).toBe(createHash('sha256').update(secret).digest('hex'));
      expect(hashSecret(secret)).toBe(hash);
      expect(displayPrefix).toBe(secret.slice(0, 12));
      expect(parseSecret(secret)).toBe(kind);
      expect(secretKindOf(secret)).toBe(kind);
    }
  });

  it('two secrets differ', () => {
    expect(issueSecret('svh_').secret).not.toBe(issueSecret('svh_').secret);
  });

  it('refuses a changed character, a wrong length, an unknown prefix or a bad alphabet', () => {
    const { secret } = issueSecret('svp_');
    const flipped = secret.slice(0, 10) + (secret[10] === 'a' ? 'b' : 'a') + secret.slice(11);
    for (const bad of [
      flipped,
      secret.slice(0, -1),
      secret + 'x',
      'svx_' + secret.slice(4),
      secret.slice(0, 20) + '-' + secret.slice(21),
      '',
    ]) {
      expect(parseSecret(bad), bad).toBeNull();
    }
    expect(secretKindOf('svh_garbage')).toBe('svh_');
    expect(secretKindOf('eyJhbGciOi')).toBeNull();
  });

  it('says what is wrong with a malformed secret', () => {
    const { secret } = issueSecret('svh_');
    expect(describeMalformed(secret, 'svh_')).toBeNull();
    expect(describeMalformed('svp_' + secret.slice(4), 'svh_')).toMatch(/must start with svh_/);
    expect(describeMalformed(secret.slice(0, -2), 'svh_')).toMatch(/42 characters long/);
    expect(describeMalformed(secret.slice(0, 20) + '!' + secret.slice(21), 'svh_')).toMatch(/only letters and digits/);
    const flipped = secret.slice(0, 10) + (secret[10] === 'a' ? 'b' : 'a') + secret.slice(11);
    expect(describeMalformed(flipped, 'svh_')).toMatch(/checksum/);
  });

  it('keeps the checksum of the published format (a known vector)', () => {
    // Secrets issued before the format moved here stay valid: the checksum of a fixed body is fixed.
    expect(checksum('svh_' + '0'.repeat(32))).toBe('1DI8W1');
    expect(parseSecret('svh_' + '0'.repeat(32) + '1DI8W1')).toBe('svh_');
  });
});
