/**
 * Core's own sessions, for local users and the temporary admin: login with a brute-force limit,
 * short-lived ES256 access tokens, opaque refresh tokens rotated on use with reuse detection.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { and, count, eq, isNull, lt, min, sql } from 'drizzle-orm';
import { jwtVerify, SignJWT } from 'jose';
import type { CoreConfig } from '../config';
import type { Db } from '../db/client';
import { loginFailures, refreshTokens, users } from '../db/schema';
import { sha256, type Sealer, type SigningKey } from './crypto';
import { CoreError, unauthorized } from './errors';
import type { Principal } from './principal';
import { findLocalUserByEmail, hashPassword, verifyPassword, type UserRow } from './users';

export const ACCESS_TOKEN_SECONDS = 15 * 60;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_MAX_FAILURES_PER_ADDRESS = 50;
/** Failures for one username from any address: from SLOW_FROM on each attempt waits, at LOCK_AT the username locks briefly. */
export const LOGIN_USERNAME_SLOW_FROM = 10;
export const LOGIN_USERNAME_LOCK_AT = 30;
export const LOGIN_USERNAME_LOCK_SECONDS = 60;
const SLOW_STEP_MS = 250;
const SLOW_MAX_MS = 3_000;
const AUDIENCE = 'core-api';

export interface SessionDeps {
  config: Pick<CoreConfig, 'url' | 'temporaryAdmin'>;
  db: Db;
  signingKey: SigningKey;
  sealer: Sealer;
}

type SessionSubject = { kind: 'local'; user: UserRow } | { kind: 'temporary_admin'; username: string };

/**
 * Ties the temporary admin's tokens to the current variables: changing or removing them ends its
 * sessions. Keyed, so that the claim in a (readable) token does not allow guessing the password.
 */
const temporaryAdminFingerprint = (sealer: Sealer, t: { username: string; password: string }) =>
  sealer.mac('temporary_admin', `${t.username}\0${t.password}`);

function sessionUser(subject: SessionSubject) {
  return subject.kind === 'local'
    ? {
        id: subject.user.id,
        email: subject.user.email,
        name: subject.user.name,
        role: subject.user.role,
        kind: 'local' as const,
      }
    : {
        id: null,
        email: subject.username,
        name: subject.username,
        role: 'admin' as const,
        kind: 'temporary_admin' as const,
      };
}

async function issueSession(deps: SessionDeps, subject: SessionSubject, familyId: string = crypto.randomUUID()) {
  const { config, db, signingKey } = deps;
  const claims =
    subject.kind === 'local'
      ? { kind: 'local' }
      : { kind: 'temporary_admin', tav: temporaryAdminFingerprint(deps.sealer, config.temporaryAdmin!) };
  const accessToken = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: signingKey.kid, typ: 'at+jwt' })
    .setIssuer(config.url)
    .setAudience(AUDIENCE)
    .setSubject(subject.kind === 'local' ? subject.user.id : subject.username)
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
    .setJti(crypto.randomUUID())
    .sign(signingKey.privateKey);
  const refreshToken = randomBytes(32).toString('base64url');
  await db.insert(refreshTokens).values({
    familyId,
    tokenHash: sha256(refreshToken),
    userId: subject.kind === 'local' ? subject.user.id : null,
    // The fingerprint, not the username: a change of either variable ends the session at its next refresh.
    temporaryAdmin:
      subject.kind === 'temporary_admin' ? temporaryAdminFingerprint(deps.sealer, config.temporaryAdmin!) : null,
    expiresAt: new Date(Date.now() + REFRESH_TOKEN_SECONDS * 1000),
  });
  return {
    access_token: accessToken,
    refresh_token: refreshToken,
    token_type: 'Bearer' as const,
    expires_in: ACCESS_TOKEN_SECONDS,
    user: sessionUser(subject),
  };
}

export type Session = Awaited<ReturnType<typeof issueSession>>;

function sameSecret(a: string, b: string) {
  return timingSafeEqual(Buffer.from(sha256(a), 'hex'), Buffer.from(sha256(b), 'hex'));
}

// Verifying against a throw-away hash makes an unknown user cost what a wrong password costs.
let dummyHash: Promise<string> | undefined;

function rateLimited(message: string, oldest: Date | string | null | undefined) {
  const since = oldest ? new Date(oldest).getTime() : Date.now();
  const retryAfter = Math.ceil((since + LOGIN_WINDOW_SECONDS * 1000 - Date.now()) / 1000);
  return new CoreError('rate_limited', message, { retryAfterSeconds: Math.max(1, retryAfter) });
}

/**
 * Counts this attempt against (username, client) and refuses the 6th within the window, even a right
 * one. Counted before the password is checked, under a lock per key, so that parallel attempts cannot
 * slip past the limit. The client is the address behind trusted proxies (IPv6 by /64), so one client's
 * failures never lock out another. One client trying many usernames (password spraying) meets a wider
 * limit (50). Many clients trying one username: from the 10th failure within the window each attempt
 * for it waits (250 ms more per failure, at most 3 s), and from the 30th it locks for 60 s after the
 * latest failure (Retry-After) — a short lock, so that nobody can lock an account out for long.
 */
async function admitAttempt(db: Db, username: string, address: string) {
  const key = and(eq(loginFailures.username, username), eq(loginFailures.address, address));
  const windowStart = new Date(Date.now() - LOGIN_WINDOW_SECONDS * 1000);
  let delayMs = 0;
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${JSON.stringify(['login', username, address])}))`);
    await tx.delete(loginFailures).where(lt(loginFailures.at, windowStart)); // keeps the table to one window
    const [forKey] = await tx
      .select({ n: count(), oldest: min(loginFailures.at) })
      .from(loginFailures)
      .where(key);
    if ((forKey?.n ?? 0) >= LOGIN_MAX_FAILURES) {
      throw rateLimited(
        'too many failed sign-ins for this username from this address; try again later',
        forKey?.oldest,
      );
    }
    const [forAddress] = await tx
      .select({ n: count(), oldest: min(loginFailures.at) })
      .from(loginFailures)
      .where(eq(loginFailures.address, address));
    if ((forAddress?.n ?? 0) >= LOGIN_MAX_FAILURES_PER_ADDRESS) {
      throw rateLimited('too many failed sign-ins from this address; try again later', forAddress?.oldest);
    }
    const [forUsername] = await tx
      .select({ n: count(), latest: sql<Date | string | null>`max(${loginFailures.at})` })
      .from(loginFailures)
      .where(eq(loginFailures.username, username));
    const failures = forUsername?.n ?? 0;
    if (failures >= LOGIN_USERNAME_LOCK_AT && forUsername?.latest) {
      const unlockAt = new Date(forUsername.latest).getTime() + LOGIN_USERNAME_LOCK_SECONDS * 1000;
      if (unlockAt > Date.now()) {
        throw new CoreError(
          'rate_limited',
          'too many failed sign-ins for this username from many addresses; try again in a minute',
          {
            retryAfterSeconds: Math.max(1, Math.ceil((unlockAt - Date.now()) / 1000)),
          },
        );
      }
    }
    await tx.insert(loginFailures).values({ username, address });
    delayMs =
      failures >= LOGIN_USERNAME_SLOW_FROM
        ? Math.min(SLOW_MAX_MS, (failures - LOGIN_USERNAME_SLOW_FROM + 1) * SLOW_STEP_MS)
        : 0;
  });
  // Slowing outside the transaction (and its lock): a waiting attempt holds nothing.
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  return {
    /** A successful sign-in clears the count. */
    succeeded: () => db.delete(loginFailures).where(key),
  };
}

export async function login(
  deps: SessionDeps,
  input: { username: string; password: string; address: string },
): Promise<Session> {
  const attempt = await admitAttempt(deps.db, input.username.toLowerCase(), input.address);
  const temporary = deps.config.temporaryAdmin;
  let subject: SessionSubject | null = null;
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  if (temporary && input.username === temporary.username) {
    // The same hashing cost as a local user's check, so that timing does not reveal this username.
    await verifyPassword(await dummyHash, input.password);
    if (sameSecret(input.password, temporary.password))
      subject = { kind: 'temporary_admin', username: temporary.username };
  } else {
    const user = await findLocalUserByEmail(deps.db, input.username);
    const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), input.password);
    if (user && ok) subject = { kind: 'local', user };
  }
  if (!subject) throw unauthorized('invalid username or password');
  await attempt.succeeded();
  return issueSession(deps, subject);
}

async function revokeFamily(db: Db, familyId: string) {
  await db
    .update(refreshTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}

export async function refresh(deps: SessionDeps, refreshToken: string): Promise<Session> {
  const { db } = deps;
  const refused = unauthorized('invalid or expired refresh token');
  const [row] = await db
    .select()
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, sha256(refreshToken)));
  if (!row || row.revokedAt || row.expiresAt <= new Date()) throw refused;
  // Claim it atomically: of two concurrent uses only one rotates; the other is a re-use.
  const claimed = await db
    .update(refreshTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(refreshTokens.id, row.id), isNull(refreshTokens.usedAt), isNull(refreshTokens.revokedAt)))
    .returning({ id: refreshTokens.id });
  if (claimed.length === 0) {
    await revokeFamily(db, row.familyId); // a rotated token came back: someone else may hold the chain
    throw refused;
  }
  let subject: SessionSubject | null = null;
  if (row.userId) {
    const [user] = await db.select().from(users).where(eq(users.id, row.userId));
    if (user) subject = { kind: 'local', user };
  } else if (row.temporaryAdmin && deps.config.temporaryAdmin) {
    const current = deps.config.temporaryAdmin;
    if (row.temporaryAdmin === temporaryAdminFingerprint(deps.sealer, current))
      subject = { kind: 'temporary_admin', username: current.username };
  }
  if (!subject) {
    await revokeFamily(db, row.familyId);
    throw refused;
  }
  return issueSession(deps, subject, row.familyId);
}

/** Ends the session the refresh token belongs to. Unknown tokens are ignored (nothing to end). */
export async function logout(db: Db, refreshToken: string) {
  const [row] = await db
    .select()
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, sha256(refreshToken)));
  if (row) await revokeFamily(db, row.familyId);
}

/** Whether a bearer token was issued by this Core (checked before any verification). */
export function isCoreSessionToken(config: Pick<CoreConfig, 'url'>, issuer: unknown) {
  return issuer === config.url;
}

/** The principal behind a Core access token; the user is re-read so that deletion and demotion apply at once. */
export async function verifySessionToken(deps: SessionDeps, token: string): Promise<Principal> {
  const { config, db, signingKey } = deps;
  let payload;
  try {
    ({ payload } = await jwtVerify(token, signingKey.publicKey, {
      issuer: config.url,
      audience: AUDIENCE,
      algorithms: ['ES256'],
    }));
  } catch {
    throw unauthorized('invalid or expired access token');
  }
  if (payload.kind === 'temporary_admin') {
    const temporary = config.temporaryAdmin;
    if (
      !temporary ||
      payload.sub !== temporary.username ||
      payload.tav !== temporaryAdminFingerprint(deps.sealer, temporary)
    ) {
      throw unauthorized('the temporary admin is no longer configured');
    }
    return { kind: 'temporary_admin', role: 'admin', username: temporary.username };
  }
  if (payload.kind === 'local' && payload.sub) {
    const [user] = await db.select().from(users).where(eq(users.id, payload.sub));
    if (user) return { kind: 'local', role: user.role, userId: user.id, email: user.email, name: user.name };
  }
  throw unauthorized('the user of this token no longer exists');
}
