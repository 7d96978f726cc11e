/**
 * Dashboard sign-in with next-auth v5 (Auth.js) and one generic OpenID Connect provider.
 *
 * The session cookie IS a Hub JWT: jwt.encode/decode sign and verify with the Hub's own key
 * (server/domain/jwt.ts), so the credential resolver verifies a session exactly like a bearer token, and
 * reads role and organization from the database on every request. Auth.js's own short-lived cookies
 * (state, PKCE, CSRF) stay encrypted with AUTH_SECRET, derived from the Hub master secret when unset.
 */
import NextAuth, { type NextAuthConfig } from 'next-auth';
import type { OIDCConfig } from 'next-auth/providers';
import { config } from '../config';
import { signUserToken, verifyJwt } from '../domain/jwt';
import { endSessions, sessionSignedOut } from '../domain/profile';
import { deriveSecret } from '../domain/sealing';
import { SignInRefused, userForOidcIdentity } from './identity';
import { sameOriginPath } from './redirects';

export const OIDC_PROVIDER_ID = 'oidc';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface OidcProfile extends Record<string, unknown> {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
}

function oidcProvider(): OIDCConfig<OidcProfile> | null {
  const oidc = config.auth.oidc;
  if (!oidc) return null;
  return {
    id: OIDC_PROVIDER_ID,
    name: oidc.name,
    type: 'oidc',
    issuer: oidc.issuer,
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    // Authorization-code flow with both PKCE and state (v5 defaults to PKCE only).
    checks: ['pkce', 'state'],
    // Read email and name from the userinfo endpoint (many providers, oidc-provider included, put only
    // `sub` in the ID token); the ID token is still validated first.
    idToken: false,
    authorization: {
      params: {
        scope: oidc.scope,
        // The development provider keeps no useful session: always ask who is signing in.
        ...(config.auth.devProvider ? { prompt: 'login' } : {}),
      },
    },
    profile: (p) => ({
      id: p.sub,
      email: p.email ?? null,
      name: p.name ?? p.preferred_username ?? null,
    }),
  };
}

let authSecret: Promise<string> | undefined;
function getAuthSecret(): Promise<string> {
  const fromEnv = config.auth.authSecret;
  if (fromEnv) return Promise.resolve(fromEnv);
  authSecret ??= deriveSecret('authjs-secret').catch((err) => {
    authSecret = undefined;
    throw err;
  });
  return authSecret;
}

// With HUB_URL set, callback URLs are built from it (AUTH_URL); otherwise from the request's host.
// NextAuth reads AUTH_URL from process.env itself: the one write of the environment.
if (config.auth.authUrlFromHubUrl) process.env.AUTH_URL = config.auth.authUrlFromHubUrl;

async function buildConfig(): Promise<NextAuthConfig> {
  const provider = oidcProvider();
  const maxAge = config.jwtTtlSeconds;
  return {
    secret: await getAuthSecret(),
    trustHost: true,
    basePath: '/api/auth',
    providers: provider ? [provider] : [],
    pages: { signIn: '/signin', error: '/signin' },
    session: { strategy: 'jwt', maxAge, updateAge: Math.min(3600, maxAge) },
    jwt: {
      maxAge,
      // Only the session cookie goes through these (Auth.js's check cookies use its own encryption).
      async encode({ token }) {
        const sub = token?.sub;
        if (!sub || !UUID.test(sub)) throw new Error('session without a Hub user id');
        return signUserToken(sub, maxAge);
      },
      async decode({ token }) {
        if (!token) return null;
        try {
          const payload = await verifyJwt(token);
          if (!payload.sub || !UUID.test(payload.sub) || (await sessionSignedOut(payload.sub, payload.iat)))
            return null;
          return { sub: payload.sub };
        } catch {
          return null;
        }
      },
    },
    events: {
      // Sign-out ends the session on the server too: this JWT (and the user's other ones) stop working at once.
      async signOut(message) {
        const sub = 'token' in message ? message.token?.sub : undefined;
        if (sub && UUID.test(sub)) await endSessions(sub);
      },
    },
    callbacks: {
      // Auth.js's default compares string prefixes; compare parsed origins instead (redirects.ts).
      redirect({ url, baseUrl }) {
        return new URL(sameOriginPath(url, '/account', baseUrl), baseUrl).toString();
      },
      async signIn({ user, account, profile }) {
        if (account?.provider !== OIDC_PROVIDER_ID || !profile) return false;
        const oidc = config.auth.oidc;
        if (!oidc) return false;
        const p = profile as OidcProfile;
        try {
          const hubUser = await userForOidcIdentity(
            {
              issuer: oidc.issuer,
              subject: String(account.providerAccountId ?? p.sub),
              email: typeof p.email === 'string' ? p.email : null,
              emailVerified: typeof p.email_verified === 'boolean' ? p.email_verified : undefined,
              name: typeof p.name === 'string' ? p.name : null,
            },
            { superadminEmails: config.auth.superadminEmails, firstUserIsSuperadmin: config.auth.devProvider },
          );
          // Without a database adapter Auth.js passes this same object on to the jwt callback:
          // from here on the session's subject is the Hub user id.
          user.id = hubUser.id;
          return true;
        } catch (err) {
          if (err instanceof SignInRefused) return `/signin?error=${err.reason}`;
          throw err;
        }
      },
      async jwt({ token, user, account }) {
        // Sign-in: keep only the Hub user id; everything else is read from the database per request.
        if (account && user?.id) return { sub: user.id };
        return { sub: token.sub };
      },
      async session({ session, token }) {
        return { ...session, user: { ...session.user, id: token.sub ?? '' } };
      },
    },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(buildConfig);
