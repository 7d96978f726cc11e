/** The refusal table: a credential that is present but not valid is refused everywhere, never anonymous. */
import { eq, inArray, sql } from 'drizzle-orm';
import { generateKeyPair, SignJWT, base64url } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { HUB_API_AUDIENCE, reloadConfig } from '../../server/config';
import { getDb } from '../../server/db/client';
import { observeStatements } from '../../server/db/statements';
import { resolveCredential } from '../../server/auth/credentials';
import { refreshInstanceKeys } from '../../server/auth/credentialCache';
import type { InstancePrincipal } from '../../server/domain/principal';
import { instanceKeys, organizations, users } from '../../server/db/schema';
import { revokeInstanceKey } from '../../server/domain/instanceKeys';
import { signJwt } from '../../server/domain/jwt';
import { issueSecret, parseSecret } from '@shared/tokens';
import { api, createCategory, createKey, createOrg, createTemplate, createUser } from '../helpers';

let org: { id: string };
let user: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  user = await createUser();
  org = await createOrg({ admin: user });
  const cat = await createCategory();
  await createTemplate({ categoryId: cat.id, slug: 'cred-public' });
});

describe('secret format', () => {
  it('issues prefixed base62 secrets with a checksum that parses back', () => {
    const { secret, hash, displayPrefix } = issueSecret('svh_');
    expect(secret).toMatch(/^svh_[0-9A-Za-z]{38}$/);
    expect(parseSecret(secret)).toBe('svh_');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(secret.startsWith(displayPrefix)).toBe(true);
    expect(parseSecret(issueSecret('svp_').secret)).toBe('svp_');
  });

  it('rejects a secret with one character changed, a wrong length or prefix', () => {
    const { secret } = issueSecret('svh_');
    const i = 10;
    const flipped = secret.slice(0, i) + (secret[i] === 'a' ? 'b' : 'a') + secret.slice(i + 1);
    expect(parseSecret(flipped)).toBeNull();
    expect(parseSecret(secret.slice(0, -1))).toBeNull();
    expect(parseSecret('svx_' + secret.slice(4))).toBeNull();
  });
});

async function catalogStatus(token: string | null, headers: Record<string, string> = {}) {
  const res = await api('/catalog/templates', { token, headers });
  return { status: res.status, code: res.body?.code, message: String(res.body?.message ?? '') };
}

describe('refusals on the catalog', () => {
  it('no credential is anonymous (200)', async () => {
    expect((await catalogStatus(null)).status).toBe(200);
  });

  it('a valid instance key and a valid JWT are accepted', async () => {
    expect((await catalogStatus((await createKey(org.id)).secret)).status).toBe(200);
    expect((await catalogStatus(user.token)).status).toBe(200);
  });

  it('malformed instance key → 401 (checksum fails, no lookup needed)', async () => {
    const r = await catalogStatus('svh_' + 'A'.repeat(38));
    expect(r).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(r.message).toMatch(/malformed/i);
  });

  it('unknown but well-formed instance key → 401', async () => {
    const r = await catalogStatus(issueSecret('svh_').secret);
    expect(r).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(r.message).toMatch(/unknown/i);
  });

  it('revoked instance key → 401', async () => {
    const key = await createKey(org.id);
    expect((await catalogStatus(key.secret)).status).toBe(200);
    await revokeInstanceKey(await getDb(), { id: key.id });
    const r = await catalogStatus(key.secret);
    expect(r).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(r.message).toMatch(/revoked/i);
  });

  it('instance key of a suspended organization → 403', async () => {
    const other = await createOrg();
    const key = await createKey(other.id);
    await (await getDb()).update(organizations).set({ status: 'suspended' }).where(eq(organizations.id, other.id));
    expect(await catalogStatus(key.secret)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('personal access token → 401 saying it is for /mcp only', async () => {
    const r = await catalogStatus(issueSecret('svp_').secret);
    expect(r).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(r.message).toContain('/mcp');
  });

  it('expired JWT → 401', async () => {
    const token = await signJwt({ subject: user.id, audience: HUB_API_AUDIENCE, ttlSeconds: -10 });
    expect(await catalogStatus(token)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('JWT for another audience → 401', async () => {
    const token = await signJwt({ subject: user.id, audience: 'some-instance', ttlSeconds: 60 });
    expect((await catalogStatus(token)).status).toBe(401);
  });

  it('JWT signed by another key (same kid, issuer, audience) → 401', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const genuine = await signJwt({ subject: user.id, audience: HUB_API_AUDIENCE, ttlSeconds: 60 });
    const kid = JSON.parse(new TextDecoder().decode(base64url.decode(genuine.split('.')[0]!))).kid;
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer('http://hub.test')
      .setAudience(HUB_API_AUDIENCE)
      .setSubject(user.id)
      .setExpirationTime('1h')
      .sign(privateKey);
    expect((await catalogStatus(forged)).status).toBe(401);
  });

  it('alg none → 401', async () => {
    const enc = (o: object) => base64url.encode(JSON.stringify(o));
    const now = Math.floor(Date.now() / 1000);
    const token = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ iss: 'http://hub.test', aud: HUB_API_AUDIENCE, sub: user.id, exp: now + 3600 })}.`;
    expect((await catalogStatus(token)).status).toBe(401);
  });

  it('JWT of a deleted user → 401', async () => {
    const gone = await createUser();
    expect((await catalogStatus(gone.token)).status).toBe(200);
    await (await getDb()).delete(users).where(eq(users.id, gone.id));
    const r = await catalogStatus(gone.token);
    expect(r.status).toBe(401);
    expect(r.message).toMatch(/no longer exists/);
  });

  it('garbage, empty and non-Bearer Authorization headers → 401', async () => {
    expect((await catalogStatus('not-a-token')).status).toBe(401);
    expect((await catalogStatus(null, { authorization: 'Basic dXNlcjpwYXNz' })).status).toBe(401);
    expect((await catalogStatus(null, { authorization: 'Bearer' })).status).toBe(401);
    expect((await catalogStatus(null, { authorization: '' })).status).toBe(401);
  });

  it('refusals are JSON with code and message and reveal no internals', async () => {
    const res = await api('/catalog/templates/cred-public', { token: 'svh_' + 'x'.repeat(38) });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['code', 'message']));
    expect(JSON.stringify(res.body)).not.toMatch(/stack|select |at \/|node_modules/i);
  });

  it('a role change takes effect on the next request (no stale authority)', async () => {
    const person = await createUser({ role: 'admin' });
    const priv = await createCategory({ isPrivate: true });
    await createTemplate({ categoryId: priv.id, slug: 'cred-hidden' });
    expect((await api('/catalog/templates/cred-hidden', { token: person.token })).status).toBe(200);
    await (await getDb()).update(users).set({ role: 'user' }).where(eq(users.id, person.id));
    expect((await api('/catalog/templates/cred-hidden', { token: person.token })).status).toBe(404);
  });
});

describe('JWKS', () => {
  it('publishes the verification key of the tokens the Hub signs', async () => {
    const { GET } = await import('../../app/.well-known/jwks.json/route');
    const jwks = await (await GET()).json();
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const { createLocalJWKSet, jwtVerify } = await import('jose');
    const { payload } = await jwtVerify(user.token, createLocalJWKSet(jwks), {
      issuer: 'http://hub.test',
      audience: HUB_API_AUDIENCE,
    });
    expect(payload.sub).toBe(user.id);
  });
});

describe('the credential cache', () => {
  it('re-reads instance keys used past half their lifetime in one background statement', async () => {
    process.env.HUB_CREDENTIAL_CACHE_TTL_MS = '1600';
    reloadConfig();
    try {
      const keys = await Promise.all([1, 2, 3].map((i) => createKey(org.id, `refresh-${i}`)));
      const names = async () =>
        Promise.all(keys.map(async (k) => ((await resolveCredential(k.secret)) as InstancePrincipal).keyName));
      expect(await names()).toEqual(['refresh-1', 'refresh-2', 'refresh-3']);
      // A change no process announces (a row changed by hand): the entries' lifetime is what bounds it.
      const db = await getDb();
      await db
        .update(instanceKeys)
        .set({ name: sql`${instanceKeys.name} || '-renamed'` })
        .where(
          inArray(
            instanceKeys.id,
            keys.map((k) => k.id),
          ),
        );
      const lookups: string[] = [];
      const stop = observeStatements((q) => void (/key_hash/.test(q) && lookups.push(q)));
      try {
        expect(await names()).toEqual(['refresh-1', 'refresh-2', 'refresh-3']);
        await new Promise((r) => setTimeout(r, 900));
        // Past half the lifetime: still answered from memory, and queued for a refresh.
        expect(await names()).toEqual(['refresh-1', 'refresh-2', 'refresh-3']);
        expect(lookups).toHaveLength(0);
        await refreshInstanceKeys();
        expect(lookups).toHaveLength(1);
        expect(await names()).toEqual(['refresh-1-renamed', 'refresh-2-renamed', 'refresh-3-renamed']);
        expect(lookups).toHaveLength(1);
      } finally {
        stop();
      }
    } finally {
      delete process.env.HUB_CREDENTIAL_CACHE_TTL_MS;
    }
  });
});
