/**
 * The signed-in person for server-rendered pages, from the session cookie (a Hub JWT) through the same
 * credential resolver as every API call. A page never decides authorization by itself: the procedures it
 * calls check again (server/api/pageCaller.ts).
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { ANONYMOUS, isPlatformAdmin, type Principal, type UserPrincipal } from '../domain/principal';
import { credentialFromHeaders, resolveCredential, type HeaderReader } from './credentials';
import { PAGE_PATH_HEADER } from './pagePath';
import { sameOriginPath } from './redirects';

export interface PageSession {
  principal: Principal;
  user: UserPrincipal | null;
  isAdmin: boolean;
  /** A session cookie was sent but is no longer valid (expired, user deleted). */
  expired: boolean;
}

/** The page's caller and its request headers. An invalid session cookie: shown as to a visitor who is not signed in. */
export async function pageCredential(): Promise<{ principal: Principal; expired: boolean; headers: HeaderReader }> {
  const requestHeaders = await headers();
  try {
    return {
      principal: await resolveCredential(credentialFromHeaders(requestHeaders, { allowSessionCookie: true })),
      expired: false,
      headers: requestHeaders,
    };
  } catch {
    return { principal: ANONYMOUS, expired: true, headers: new Headers() };
  }
}

export function sessionOf(principal: Principal, expired: boolean): PageSession {
  const user = principal.kind === 'user' ? principal : null;
  return { principal, user, isAdmin: isPlatformAdmin(principal), expired };
}

export async function pageSession(): Promise<PageSession> {
  const { principal, expired } = await pageCredential();
  return sessionOf(principal, expired);
}

/**
 * Sends a signed-out visitor to the sign-in page, coming back afterwards to the page they asked for (its
 * path and query, as the proxy recorded it) or, without that, to `path`.
 */
export async function requireUser(path: string): Promise<PageSession & { user: UserPrincipal }> {
  const session = await pageSession();
  if (!session.user) {
    const asked = (await headers()).get(PAGE_PATH_HEADER);
    const back = asked ? sameOriginPath(asked, path) : path;
    redirect(`/signin?callbackUrl=${encodeURIComponent(back)}${session.expired ? '&error=expired' : ''}`);
  }
  return session as PageSession & { user: UserPrincipal };
}
