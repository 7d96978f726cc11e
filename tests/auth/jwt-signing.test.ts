/**
 * The Hub's JWTs as a verifier sees them: signed by the key of HUB_JWT_PRIVATE_KEY (a PEM given with `\n`
 * escapes, as in an env file), the kid its JWK thumbprint, verifiable with nothing but the published JWKS;
 * every instance assertion carries its own jti.
 */
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, exportJWK, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { config, HUB_API_AUDIENCE } from '../../server/config';
import { publicJwks, signInstanceAssertion, signUserToken, verifyJwt } from '../../server/domain/jwt';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

beforeAll(() => {
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  process.env.HUB_JWT_PRIVATE_KEY = pem.trim().replace(/\n/g, '\\n');
});

describe('JWT signing with HUB_JWT_PRIVATE_KEY', () => {
  it('signs with that key: kid is its thumbprint, the published JWKS alone verifies the token', async () => {
    const token = await signUserToken('user-1', 600);
    const expectedKid = await calculateJwkThumbprint(await exportJWK(publicKey));
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'JWT', kid: expectedKid });
    const jwks = await publicJwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([expectedKid]);
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: config.hubUrl,
      audience: HUB_API_AUDIENCE,
    });
    expect(payload.sub).toBe('user-1');
    expect(payload.exp! - payload.iat!).toBe(600);
    expect((await verifyJwt(token)).sub).toBe('user-1');
    // Another key's signature over the same claims is refused.
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.${'A'.repeat(86)}`;
    await expect(verifyJwt(forged)).rejects.toThrow();
  });

  it('gives every instance assertion its own jti, for the instance as audience', async () => {
    const options = { subject: 'user-1', audience: 'instance-1', ttlSeconds: 60, claims: { org_id: 'org-1' } };
    const [a, b] = await Promise.all([signInstanceAssertion(options), signInstanceAssertion(options)]);
    const [pa, pb] = [await verifyJwt(a!, 'instance-1'), await verifyJwt(b!, 'instance-1')];
    expect(pa.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(pa.jti).not.toBe(pb.jti);
    expect(pa.org_id).toBe('org-1');
    await expect(verifyJwt(a!)).rejects.toThrow(); // not a Hub API token
  });
});
