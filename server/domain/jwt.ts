/**
 * The Hub's own JWTs (ES256): session and script tokens for the API, and short-lived assertions
 * the MCP proxy sends to instances. Keys come from HUB_JWT_PRIVATE_KEY or are generated once and
 * stored (encrypted) in the database, so that every process on one database accepts the same tokens.
 */
import { createPrivateKey, randomUUID, sign, type JsonWebKey } from 'node:crypto';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importPKCS8,
  jwtVerify,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
} from 'jose';
import { asc } from 'drizzle-orm';
import { config, HUB_API_AUDIENCE } from '../config';
import { databaseOpenings, getDb } from '../db/client';
import { signingKeys } from '../db/schema';
import { decryptSecret, encryptSecret, sealedFields } from './sealing';

const ALG = 'ES256';

interface KeyRing {
  /** Signs a complete payload with the current key (header: alg, typ, kid). */
  sign: (payload: JWTPayload) => string;
  jwks: JSONWebKeySet;
  verify: ReturnType<typeof createLocalJWKSet>;
}

/** The keys, with where they came from: the database (another one, once reopened, has its own) or the configured key. */
let ring: { opening: number; configured: string | undefined; keys: Promise<KeyRing> } | undefined;

function publicPart(jwk: JWK): JWK {
  const { kty, crv, x, y } = jwk;
  return { kty, crv, x, y };
}

/**
 * Signing is node:crypto's, synchronous (~25 µs an ES256 signature here), the signature in JOSE's r‖s form straight
 * from OpenSSL (dsaEncoding ieee-p1363) and the header encoded once per key. jose signs through WebCrypto,
 * asynchronously on the thread pool (~95 µs, more under load), which the MCP proxy paid on every forwarded request;
 * fast-jwt (used before) rebuilt and encoded the header per token and converted a DER signature in JavaScript.
 * jose still reads keys, verifies and serves the JWKS.
 */
function signerOf(privateKeyPem: string, kid: string): KeyRing['sign'] {
  const key = createPrivateKey(privateKeyPem);
  const header = Buffer.from(JSON.stringify({ alg: ALG, typ: 'JWT', kid })).toString('base64url');
  return (payload) => {
    const input = `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  };
}

async function loadKeyRing(): Promise<KeyRing> {
  if (config.jwtPrivateKey) {
    const key = await importPKCS8(config.jwtPrivateKey, ALG, { extractable: true });
    const pub = publicPart(await exportJWK(key));
    const kid = await calculateJwkThumbprint(pub);
    const jwks = { keys: [{ ...pub, kid, alg: ALG, use: 'sig' }] };
    return { sign: signerOf(config.jwtPrivateKey, kid), jwks, verify: createLocalJWKSet(jwks) };
  }
  const db = await getDb();
  let rows = await db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt), asc(signingKeys.kid));
  if (rows.length === 0) {
    const { privateKey } = await generateKeyPair(ALG, { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    const pub = publicPart(privateJwk);
    const kid = await calculateJwkThumbprint(pub);
    await db
      .insert(signingKeys)
      .values({
        kid,
        alg: ALG,
        publicJwk: pub,
        privateJwkEnc: await encryptSecret(sealedFields.jwtSigningKey(kid), JSON.stringify(privateJwk)),
      })
      .onConflictDoNothing();
    // Processes racing here each insert a key; all agree on the oldest for signing and accept every one.
    rows = await db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt), asc(signingKeys.kid));
  }
  const first = rows[0]!;
  const privateJwk = JSON.parse(await decryptSecret(sealedFields.jwtSigningKey(first.kid), first.privateJwkEnc)) as JWK;
  const pem = createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }).export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  const jwks = { keys: rows.map((r) => ({ ...(r.publicJwk as JWK), kid: r.kid, alg: r.alg, use: 'sig' })) };
  return { sign: signerOf(pem, first.kid), jwks, verify: createLocalJWKSet(jwks) };
}

function getKeyRing(): Promise<KeyRing> {
  const configured = config.jwtPrivateKey;
  if (ring?.opening !== databaseOpenings() || ring.configured !== configured) {
    const keys = loadKeyRing().catch((err) => {
      if (ring?.keys === keys) ring = undefined;
      throw err;
    });
    ring = { opening: databaseOpenings(), configured, keys };
  }
  return ring.keys;
}

export async function publicJwks(): Promise<JSONWebKeySet> {
  return (await getKeyRing()).jwks;
}

export interface SignOptions {
  subject: string;
  audience: string;
  ttlSeconds: number;
  claims?: JWTPayload;
}

export async function signJwt({ subject, audience, ttlSeconds, claims = {} }: SignOptions): Promise<string> {
  const { sign } = await getKeyRing();
  const now = Math.floor(Date.now() / 1000);
  return sign({ ...claims, iss: config.hubUrl, aud: audience, sub: subject, iat: now, exp: now + ttlSeconds });
}

/**
 * The Hub's identity assertion for an instance's /mcp (aud = the instance key id). Minted for every forwarded
 * request and never reused: each carries its own `jti`, and Core refuses a `jti` it has already seen.
 */
export function signInstanceAssertion(opts: SignOptions): Promise<string> {
  return signJwt({ ...opts, claims: { ...opts.claims, jti: randomUUID() } });
}

/** A Hub API token for a user (browser sessions; carries no `jti`, so it is not a recorded script token). */
export function signUserToken(userId: string, ttlSeconds = config.jwtTtlSeconds): Promise<string> {
  return signJwt({ subject: userId, audience: HUB_API_AUDIENCE, ttlSeconds });
}

/**
 * A recorded script token (server/domain/scriptTokens.ts): a Hub API token whose `jti` names its row in
 * script_tokens; the resolver refuses it once that row is revoked or gone.
 */
export async function signScriptJwt(
  userId: string,
  ttlSeconds: number,
  jti: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = await signJwt({ subject: userId, audience: HUB_API_AUDIENCE, ttlSeconds, claims: { jti } });
  return { token, expiresAt: new Date(decodeJwt(token).exp! * 1000) };
}

/** Verifies signature (ES256 only), issuer, audience and expiry; throws on any failure. */
export async function verifyJwt(token: string, audience: string = HUB_API_AUDIENCE): Promise<JWTPayload> {
  const { verify } = await getKeyRing();
  const { payload } = await jwtVerify(token, verify, {
    algorithms: [ALG],
    issuer: config.hubUrl,
    audience,
    requiredClaims: ['sub', 'exp'],
  });
  return payload;
}
