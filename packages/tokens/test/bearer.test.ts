import { describe, expect, it } from 'vitest';
import { parseBearer } from '../src/bearer';

describe('parseBearer', () => {
  it('reads the token whatever the scheme case, after spaces or tabs', () => {
    expect(parseBearer('Bearer svh_abc')).toBe('svh_abc');
    expect(parseBearer('bearer svh_abc')).toBe('svh_abc');
    expect(parseBearer('BEARER  svh_abc')).toBe('svh_abc');
    expect(parseBearer('Bearer\tsvh_abc')).toBe('svh_abc');
    expect(parseBearer('Bearer \t eyJhbGciOi.eyJzdWIi.c2ln  ')).toBe('eyJhbGciOi.eyJzdWIi.c2ln');
  });

  it('is null for no header, another scheme, no token or more than one word', () => {
    expect(parseBearer(undefined)).toBeNull();
    expect(parseBearer(null)).toBeNull();
    expect(parseBearer('')).toBeNull();
    expect(parseBearer('Basic dXNlcjpwYXNz')).toBeNull();
    expect(parseBearer('Bearer')).toBeNull();
    expect(parseBearer('Bearer ')).toBeNull();
    expect(parseBearer('Bearersvh_abc')).toBeNull();
    expect(parseBearer('Bearer a b')).toBeNull();
    expect(parseBearer('Bearer a\nb')).toBeNull();
    expect(parseBearer(' Bearer a')).toBeNull();
  });
});
