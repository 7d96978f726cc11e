/**
 * Dashboard sign-in end to end without a browser: the real Auth.js handlers (app/api/auth) against the
 * real development OpenID provider (oidc-provider on 127.0.0.1), cookies carried by hand. The session
 * cookie that comes out must be a Hub JWT that the one credential resolver accepts, for the right user.
 */
import { eq } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { auditLog, users } from '../../server/db/schema';
import { resolveCredential } from '../../server/auth/credentials';
import { verifyJwt } from '../../server/domain/jwt';
import { startDevOidcProvider, type DevOidcProvider } from '../../server/auth/dev-oidc-provider.mjs';
import { SignInRefused, userForOidcIdentity } from '../../server/auth/identity';
import { createUser, unique } from '../helpers';
import { reloadConfig } from '../../server/config';

const HUB = 'http://hub.test';
let dev: DevOidcProvider;
let handlers: { GET: (req: NextRequest) => Promise<Response>; POST: (req: NextRequest) => Promise<Response> };

class Jar {
  cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eqAt = pair!.indexOf('=');
      const name = pair!.slice(0, eqAt).trim();
      const value = pair!.slice(eqAt + 1).trim();
      const expired = attrs.some((a) => /max-age=0/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** One person signing in through the whole OIDC flow; returns the Hub's session cookie value. */
async function signInAs(
  email: string,
  name = 'Test Person',
): Promise<{ session: string | undefined; location: string }> {
  const hub = new Jar();
  const idp = new Jar();
  const hubReq = (path: string, init: RequestInit = {}) =>
    new NextRequest(`${HUB}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), cookie: hub.header() },
    } as ConstructorParameters<typeof NextRequest>[1]);

  const csrfRes = await handlers.GET(hubReq('/api/auth/csrf'));
  hub.take(csrfRes);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const start = await handlers.POST(
    hubReq('/api/auth/signin/oidc', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${HUB}/account` }).toString(),
    }),
  );
  hub.take(start);
  let location = start.headers.get('location')!;
  expect(location.startsWith(dev.issuer + '/auth')).toBe(true);
  const authUrl = new URL(location);
  expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authUrl.searchParams.get('state')).toBeTruthy();

  // Follow the provider's redirects, fill in its login form, until it sends us back to the Hub.
  let method = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 10 && location.startsWith(dev.issuer); hop++) {
    const res = await fetch(location, {
      method,
      body,
      redirect: 'manual',
      headers: { cookie: idp.header(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    idp.take(res);
    if (res.status === 200) {
      const html = await res.text();
      const action = /action="([^"]+)"/.exec(html)![1]!;
      location = new URL(action, dev.issuer).toString();
      method = 'POST';
      body = new URLSearchParams({ email, name }).toString();
      continue;
    }
    method = 'GET';
    body = undefined;
    location = new URL(res.headers.get('location')!, location).toString();
  }
  expect(location.startsWith(`${HUB}/api/auth/callback/oidc`)).toBe(true);
  const callback = await handlers.GET(hubReq(location.slice(HUB.length)));
  hub.take(callback);
  return { session: hub.cookies.get('authjs.session-token'), location: callback.headers.get('location') ?? '' };
}

beforeAll(async () => {
  dev = await startDevOidcProvider({ redirectUris: [`${HUB}/api/auth/callback/oidc`], quiet: true });
  Object.assign(process.env, dev.env, { HUB_SUPERADMIN_EMAILS: 'boss@example.test' });
  process.env.AUTH_URL = `${HUB}/api/auth`;
  reloadConfig();
  ({ handlers } = (await import('../../server/auth/nextauth')) as never);
});

afterAll(async () => {
  await dev?.close();
});

describe('OIDC sign-in through Auth.js and the development provider', () => {
  it('first person becomes superadmin; the session cookie is a Hub JWT the resolver accepts', async () => {
    const email = `${unique('first')}@example.test`;
    const { session, location } = await signInAs(email, 'First Person');
    expect(location).toBe(`${HUB}/account`);
    expect(session).toBeTruthy();
    const claims = await verifyJwt(session!);
    const principal = await resolveCredential(session!);
    expect(principal).toMatchObject({ kind: 'user', email, role: 'superadmin', name: 'First Person' });
    expect(claims.sub).toBe(principal.kind === 'user' ? principal.userId : 'x');

    // Signing in again is the same user (identified by issuer + subject), still one row.
    const again = await signInAs(email);
    expect((await verifyJwt(again.session!)).sub).toBe(claims.sub);
    const db = await getDb();
    expect(await db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
    const [row] = await db.select().from(users).where(eq(users.email, email));
    expect(row!.oidcIssuer).toBe(dev.issuer);
    expect(row!.oidcSubject).toMatch(/^dev-/);
    const audit = await db.select().from(auditLog).where(eq(auditLog.targetId, row!.id));
    expect(audit.map((a) => a.action).sort()).toEqual(['user.create', 'user.role_change']);
  });

  it('the second person is a plain user; deleting the user ends the session on the next request', async () => {
    const email = `${unique('second')}@example.test`;
    const { session } = await signInAs(email);
    const principal = await resolveCredential(session!);
    expect(principal).toMatchObject({ kind: 'user', email, role: 'user' });

    const db = await getDb();
    await db.delete(users).where(eq(users.email, email));
    await expect(resolveCredential(session!)).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('links a CLI-created user by email on first sign-in, and HUB_SUPERADMIN_EMAILS promotes', async () => {
    const cli = await createUser({ email: 'boss@example.test', name: 'The Boss' });
    const { session } = await signInAs('Boss@Example.test');
    const principal = await resolveCredential(session!);
    expect(principal).toMatchObject({ kind: 'user', userId: cli.id, role: 'superadmin', name: 'The Boss' });
  });
});

describe('identity rules', () => {
  const policy = { superadminEmails: [], firstUserIsSuperadmin: false };

  it('refuses an identity without email, and linking to an account bound to another identity', async () => {
    await expect(
      userForOidcIdentity({ issuer: 'https://idp.test', subject: 's1', email: null }, policy),
    ).rejects.toBeInstanceOf(SignInRefused);
    const email = `${unique('taken')}@example.test`;
    const first = await userForOidcIdentity(
      { issuer: 'https://idp.test', subject: unique('s'), email, emailVerified: true },
      policy,
    );
    expect(first.created).toBe(true);
    await expect(
      userForOidcIdentity({ issuer: 'https://other.test', subject: 's2', email, emailVerified: true }, policy),
    ).rejects.toMatchObject({
      reason: 'identity_conflict',
    });
  });

  it('an unverified (or unstated) email neither links, nor claims the email, nor is promoted: a separate account with nothing', async () => {
    const user = await createUser({ role: 'admin' });
    const boss = `${unique('boss')}@example.test`;
    const strict = { superadminEmails: [boss, user.email], firstUserIsSuperadmin: false };
    for (const emailVerified of [false, undefined]) {
      const other = await userForOidcIdentity(
        { issuer: 'https://idp.test', subject: unique('s'), email: user.email, emailVerified },
        strict,
      );
      expect(other.id).not.toBe(user.id);
      expect(other).toMatchObject({
        role: 'user',
        created: true,
        email: expect.stringMatching(/@unverified\.invalid$/),
      });
      const [row] = await (await getDb()).select().from(users).where(eq(users.id, other.id));
      expect(row).toMatchObject({ orgId: null, orgRole: null });
      const fresh = await userForOidcIdentity(
        { issuer: 'https://idp.test', subject: unique('s'), email: boss, emailVerified },
        strict,
      );
      expect(fresh).toMatchObject({ role: 'user', email: expect.stringMatching(/@unverified\.invalid$/) });
    }
    // The email stays free for its verified owner, who is then promoted.
    const owner = await userForOidcIdentity(
      { issuer: 'https://idp.test', subject: unique('s'), email: boss, emailVerified: true },
      strict,
    );
    expect(owner).toMatchObject({ email: boss, role: 'superadmin' });
  });

  it('keeps the account when the provider changes the email (same subject)', async () => {
    const subject = unique('s');
    const a = await userForOidcIdentity(
      { issuer: 'https://idp.test', subject, email: `${unique('a')}@example.test`, emailVerified: true },
      policy,
    );
    const b = await userForOidcIdentity(
      { issuer: 'https://idp.test', subject, email: `${unique('b')}@example.test`, emailVerified: true },
      policy,
    );
    expect(b.id).toBe(a.id);
  });
});
