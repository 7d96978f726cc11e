/**
 * Core's own sessions, for local users and the temporary admin: login with brute-force limits per client (a
 * device token makes a client that signed in before a recognized one), short-lived ES256 access tokens, opaque
 * refresh tokens rotated on use with reuse detection.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { and, count, eq, isNull, lt, min, sql } from 'drizzle-orm';
import { jwtVerify, SignJWT } from 'jose';
import type { CoreConfig } from '../config';
import type { Db } from '../db/client';
import { loginFailures, refreshTokens, users } from '../db/schema';
import { sha256, type Sealer, type SigningKey } from './crypto';
import { ServiceError, unauthenticated } from './errors';
import type { Principal } from './principal';
import type { LoginPacer } from './loginPacing';
import { findLocalUserByEmail, hashPassword, verifyPassword, type UserRow } from './users';

export const ACCESS_TOKEN_SECONDS = 15 * 60;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_MAX_FAILURES_PER_ADDRESS = 50;
/** Failures for one username from any client: from SLOW_FROM on, strange clients wait in line (loginPacing.ts). */
export const LOGIN_USERNAME_SLOW_FROM = 10;
const AUDIENCE = 'core-api';
/** A device token's audience: never an access token, and an access token is never a device token. */
const DEVICE_AUDIENCE = 'core-device';
const DEVICE_TOKEN_DAYS = 180;

export interface SessionDeps {
  config: Pick<CoreConfig, 'url' | 'temporaryAdmin'>;
  db: Db;
  signingKey: SigningKey;
  sealer: Sealer;
}

/** A sign-in also needs the line of strange clients per username (shared through the database). */
export type LoginDeps = SessionDeps & { loginPacer: LoginPacer };

type SessionSubject = { kind: 'local'; user: UserRow } | { kind: 'temporary_admin'; username: string };

/**
 * Ties the temporary admin's tokens to the current variables: changing or removing them ends its
 * sessions. Keyed, so that the claim in a (readable) token does not allow guessing the password.
 */
const temporaryAdminFingerprint = (sealer: Sealer, t: { username: string; password: string }) =>
  sealer.mac('temporary_admin', `${t.username}\0${t.password}`);

/**
 * Ties a device token to the user's current password: a new password (any new hash: each has its own salt) ends
 * every device token issued before it. Keyed, so that the claim does not reveal anything about the hash.
 */
const passwordFingerprint = (sealer: Sealer, user: UserRow) =>
  sealer.mac('device_password', `${user.id}\0${user.passwordHash ?? ''}`);

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

/**
 * A device token: what a client that signed in keeps (the web frontend in localStorage) and sends with its next
 * sign-in, so that failures of other clients for the same username neither slow it down nor lock it out. Signed
 * with the session key for one subject and one device, bound to the subject's current credential (the password's
 * fingerprint, or the temporary admin's): a changed password, a deleted user or changed temporary-admin variables
 * end it. It grants nothing by itself: the password is still checked.
 */
async function issueDeviceToken(deps: SessionDeps, subject: SessionSubject, deviceId: string) {
  const binding =
    subject.kind === 'local'
      ? { kind: 'local', pwf: passwordFingerprint(deps.sealer, subject.user) }
      : { kind: 'temporary_admin', tav: temporaryAdminFingerprint(deps.sealer, deps.config.temporaryAdmin!) };
  return new SignJWT({ ...binding, dev: deviceId })
    .setProtectedHeader({ alg: 'ES256', kid: deps.signingKey.kid, typ: 'device+jwt' })
    .setIssuer(deps.config.url)
    .setAudience(DEVICE_AUDIENCE)
    .setSubject(subject.kind === 'local' ? subject.user.id : subject.username)
    .setIssuedAt()
    .setExpirationTime(`${DEVICE_TOKEN_DAYS}d`)
    .sign(deps.signingKey.privateKey);
}

/**
 * The device id of a device token that is valid for this sign-in's username today, or null (then the client is a
 * strange one: no error, the token is only ignored). `user` is the local user the username names, if any.
 */
async function recognizedDevice(
  deps: SessionDeps,
  token: string,
  username: string,
  user: UserRow | undefined,
): Promise<string | null> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, deps.signingKey.publicKey, {
      issuer: deps.config.url,
      audience: DEVICE_AUDIENCE,
      algorithms: ['ES256'],
      typ: 'device+jwt',
    }));
  } catch {
    return null;
  }
  if (typeof payload.dev !== 'string') return null;
  const temporary = deps.config.temporaryAdmin;
  if (temporary && username === temporary.username) {
    const ok =
      payload.kind === 'temporary_admin' &&
      payload.sub === temporary.username &&
      payload.tav === temporaryAdminFingerprint(deps.sealer, temporary);
    return ok ? payload.dev : null;
  }
  const ok =
    payload.kind === 'local' &&
    user !== undefined &&
    payload.sub === user.id &&
    payload.pwf === passwordFingerprint(deps.sealer, user);
  return ok ? payload.dev : null;
}

function sameSecret(a: string, b: string) {
  return timingSafeEqual(Buffer.from(sha256(a), 'hex'), Buffer.from(sha256(b), 'hex'));
}

// Verifying against a throw-away hash makes an unknown user cost what a wrong password costs.
let dummyHash: Promise<string> | undefined;

function rateLimited(message: string, oldest: Date | string | null | undefined) {
  const since = oldest ? new Date(oldest).getTime() : Date.now();
  const retryAfter = Math.ceil((since + LOGIN_WINDOW_SECONDS * 1000 - Date.now()) / 1000);
  return new ServiceError('rate_limited', message, { retryAfterSeconds: Math.max(1, retryAfter) });
}

/**
 * Counts this attempt against (username, client) and refuses the 6th within the window, even a right one (429 with
 * Retry-After). Counted before the password is checked, under a lock per key, so that parallel attempts cannot
 * slip past the limit. The client is a recognized device (a valid device token for this username) or else the
 * address behind trusted proxies (IPv6 by /64), so one client's failures never lock out another. One address
 * trying many usernames (password spraying) meets a wider limit (50). Nothing locks a username for everyone:
 * many clients against one username only slow down the strange ones — from the 10th failure within the window
 * their attempts wait in one line per username, each 250 ms more per failure (at most 5 s) after the one before,
 * and a full line answers 429 to the strange client — while a recognized device never waits in that line.
 */
async function admitAttempt(deps: LoginDeps, username: string, client: { address: string; device: string | null }) {
  const { db, loginPacer } = deps;
  // A full line refuses before any database work (a flood costs no transactions).
  if (!client.device) loginPacer.refuseIfFull(username);
  const clientKey = client.device ? `device:${client.device}` : client.address;
  const key = and(eq(loginFailures.username, username), eq(loginFailures.address, clientKey));
  const windowStart = new Date(Date.now() - LOGIN_WINDOW_SECONDS * 1000);
  let delayMs = 0;
  let failureId = 0;
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${JSON.stringify(['login', username, clientKey])}))`);
    await tx.delete(loginFailures).where(lt(loginFailures.at, windowStart)); // keeps the table to one window
    const [forKey] = await tx
      .select({ n: count(), oldest: min(loginFailures.at) })
      .from(loginFailures)
      .where(key);
    if ((forKey?.n ?? 0) >= LOGIN_MAX_FAILURES) {
      throw rateLimited(
        `too many failed sign-ins for this username from this ${client.device ? 'device' : 'address'}; try again later`,
        forKey?.oldest,
      );
    }
    if (!client.device) {
      const [forAddress] = await tx
        .select({ n: count(), oldest: min(loginFailures.at) })
        .from(loginFailures)
        .where(eq(loginFailures.address, client.address));
      if ((forAddress?.n ?? 0) >= LOGIN_MAX_FAILURES_PER_ADDRESS) {
        throw rateLimited('too many failed sign-ins from this address; try again later', forAddress?.oldest);
      }
      const [forUsername] = await tx
        .select({ n: count() })
        .from(loginFailures)
        .where(eq(loginFailures.username, username));
      delayMs = loginPacer.delayFor(forUsername?.n ?? 0, LOGIN_USERNAME_SLOW_FROM);
    }
    const [row] = await tx
      .insert(loginFailures)
      .values({ username, address: clientKey })
      .returning({ id: loginFailures.id });
    failureId = row!.id;
  });
  // Waiting outside the transaction (and its lock): a waiting attempt holds nothing but its place in line.
  if (delayMs > 0) {
    try {
      await loginPacer.wait(username, delayMs);
    } catch (err) {
      // Refused by a full line: no password was tried, so it is no failure.
      await db.delete(loginFailures).where(eq(loginFailures.id, failureId));
      throw err;
    }
  }
  return {
    /** A successful sign-in clears this client's count (its device's, or its address's: not both). */
    succeeded: () => db.delete(loginFailures).where(key),
  };
}

export type LoginSession = Session & { device_token: string };

/**
 * Signs in with a password. `deviceToken` is the one this client got at its last sign-in: valid for this username,
 * it makes the client a recognized device (its own limit; other clients' failures do not touch it).
 */
export async function login(
  deps: LoginDeps,
  input: { username: string; password: string; address: string; deviceToken?: string },
): Promise<LoginSession> {
  const temporary = deps.config.temporaryAdmin;
  const isTemporary = !!temporary && input.username === temporary.username;
  const user = isTemporary ? undefined : await findLocalUserByEmail(deps.db, input.username);
  const device = input.deviceToken ? await recognizedDevice(deps, input.deviceToken, input.username, user) : null;
  const attempt = await admitAttempt(deps, input.username.toLowerCase(), { address: input.address, device });
  let subject: SessionSubject | null = null;
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  if (temporary && isTemporary) {
    // The same hashing cost as a local user's check, so that timing does not reveal this username.
    await verifyPassword(await dummyHash, input.password);
    if (sameSecret(input.password, temporary.password))
      subject = { kind: 'temporary_admin', username: temporary.username };
  } else {
    const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), input.password);
    if (user && ok) subject = { kind: 'local', user };
  }
  if (!subject) throw unauthenticated('invalid username or password');
  await attempt.succeeded();
  const session = await issueSession(deps, subject);
  return { ...session, device_token: await issueDeviceToken(deps, subject, device ?? crypto.randomUUID()) };
}

async function revokeFamily(db: Db, familyId: string) {
  await db
    .update(refreshTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}

export async function refresh(deps: SessionDeps, refreshToken: string): Promise<Session> {
  const { db } = deps;
  const refused = unauthenticated('invalid or expired refresh token');
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
    throw unauthenticated('invalid or expired access token');
  }
  if (payload.kind === 'temporary_admin') {
    const temporary = config.temporaryAdmin;
    if (
      !temporary ||
      payload.sub !== temporary.username ||
      payload.tav !== temporaryAdminFingerprint(deps.sealer, temporary)
    ) {
      throw unauthenticated('the temporary admin is no longer configured');
    }
    return { kind: 'temporary_admin', role: 'admin', username: temporary.username };
  }
  if (payload.kind === 'local' && payload.sub) {
    const [user] = await db.select().from(users).where(eq(users.id, payload.sub));
    if (user) return { kind: 'local', role: user.role, userId: user.id, email: user.email, name: user.name };
  }
  throw unauthenticated('the user of this token no longer exists');
}
