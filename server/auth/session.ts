/**
 * The signed-in person for server-rendered pages: the same credential resolver as every API call,
 * reading the session cookie (a Hub JWT). A page never decides authorization by itself: the
 * procedures it calls check again.
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { createCaller } from '../api/root';
import type { Context } from '../api/trpc';
import { credentialFromHeaders, resolveCredential } from '../domain/credentials';
import { ANONYMOUS, isPlatformAdmin, type Principal, type UserPrincipal } from '../domain/principal';

export interface PageSession {
  principal: Principal;
  user: UserPrincipal | null;
  isAdmin: boolean;
  /** A session cookie was sent but is no longer valid (expired, user deleted). */
  expired: boolean;
}

export async function pageSession(): Promise<PageSession> {
  const h = await headers();
  let principal: Principal = ANONYMOUS;
  let expired = false;
  try {
    principal = await resolveCredential(credentialFromHeaders(h, { allowSessionCookie: true }));
  } catch {
    expired = true;
  }
  const user = principal.kind === 'user' ? principal : null;
  return { principal, user, isAdmin: isPlatformAdmin(principal), expired };
}

/** A server-side caller of the tRPC procedures, as the signed-in person (or anonymous). */
export async function pageCaller() {
  const session = await pageSession();
  const ctx: Context = { principal: session.principal, headers: await headers(), resHeaders: new Headers(), conditionalRequests: false };
  return { caller: createCaller(ctx), session };
}

/** Sends a signed-out visitor to the sign-in page, coming back to `path` afterwards. */
export async function requireUser(path: string): Promise<PageSession & { user: UserPrincipal }> {
  const session = await pageSession();
  if (!session.user) redirect(`/signin?callbackUrl=${encodeURIComponent(path)}${session.expired ? '&error=expired' : ''}`);
  return session as PageSession & { user: UserPrincipal };
}
