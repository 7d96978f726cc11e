/**
 * The signed-in person for server-rendered pages: the same context (and so the same credential
 * resolver) as every API call, reading the session cookie (a Hub JWT). A page never decides
 * authorization by itself: the procedures it calls check again.
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { createCaller } from '../api/root';
import { createContext, type Context } from '../api/trpc';
import { isPlatformAdmin, type Principal, type UserPrincipal } from '../domain/principal';

export interface PageSession {
  principal: Principal;
  user: UserPrincipal | null;
  isAdmin: boolean;
  /** A session cookie was sent but is no longer valid (expired, user deleted). */
  expired: boolean;
}

async function pageContext(): Promise<{ ctx: Context; expired: boolean }> {
  try {
    return { ctx: await createContext(await headers(), { allowSessionCookie: true }), expired: false };
  } catch {
    // An invalid session cookie: the page is shown as to a visitor who is not signed in.
    return { ctx: await createContext(new Headers()), expired: true };
  }
}

function sessionOf(principal: Principal, expired: boolean): PageSession {
  const user = principal.kind === 'user' ? principal : null;
  return { principal, user, isAdmin: isPlatformAdmin(principal), expired };
}

export async function pageSession(): Promise<PageSession> {
  const { ctx, expired } = await pageContext();
  return sessionOf(ctx.principal, expired);
}

/** A server-side caller of the tRPC procedures, as the signed-in person (or anonymous). */
export async function pageCaller() {
  const { ctx, expired } = await pageContext();
  return { caller: createCaller(ctx), session: sessionOf(ctx.principal, expired) };
}

/** Sends a signed-out visitor to the sign-in page, coming back to `path` afterwards. */
export async function requireUser(path: string): Promise<PageSession & { user: UserPrincipal }> {
  const session = await pageSession();
  if (!session.user) redirect(`/signin?callbackUrl=${encodeURIComponent(path)}${session.expired ? '&error=expired' : ''}`);
  return session as PageSession & { user: UserPrincipal };
}
