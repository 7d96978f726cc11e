/**
 * Who is signed in, in this tab, and `api()`, the authorized request every page uses.
 *
 * A local sign-in (password, temporary admin): Core keeps the refresh token in an HttpOnly, SameSite=Strict cookie
 * scoped to /api/v1/auth (X-Core-Session: cookie); the access token lives in this tab's memory only. A new tab or a
 * reload asks Core for an access token with that cookie (restore()), so no script ever reads either token.
 *
 * OIDC: the provider's tokens, in sessionStorage as before. Core cannot set the provider's refresh token as a
 * cookie (the browser, a public PKCE client, redeems it at the provider), and localStorage would hand it to any
 * script for its whole life: a new tab signs in again through the provider, whose own session makes that one click.
 */
import { useSyncExternalStore } from 'react';
import { ApiError, onCoreWarning, request, type RequestOptions } from './http';
import { finishSignIn, refreshTokens, type OidcClientConfig, type ProviderTokens } from './oidc';
import type { AuthConfig, LoginResponse } from './types';

interface Session {
  method: 'local' | 'oidc';
  access_token: string;
  refresh_token: string | null;
  /** When to refresh (epoch ms): three quarters into the access token's life; null when it did not say. */
  refresh_at: number | null;
  /** The provider, for OIDC refreshes. */
  oidc?: OidcClientConfig;
}

export interface SessionState {
  session: Session | null;
  /** Why the last session ended, for the login page (null after a deliberate sign-out). */
  notice: string | null;
  /** The X-Core-Warning header of the latest answer (the temporary admin's). */
  warning: string | null;
  /** True while this tab asks Core whether its cookie still holds a session (a new tab, a reload). */
  restoring: boolean;
}

const KEY = 'core.session';
/** The X-Core-Session header: Core sets and reads the refresh cookie for requests that carry it. */
const COOKIE_MODE = { 'x-core-session': 'cookie' };
const initial = load();
let state: SessionState = {
  session: initial,
  notice: null,
  warning: sessionStorage.getItem(KEY + '.warning'),
  restoring: initial === null,
};
const listeners = new Set<() => void>();
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<boolean> | null = null;

function load(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    const s = raw ? (JSON.parse(raw) as Session) : null;
    return s?.method === 'oidc' ? s : null;
  } catch {
    return null;
  }
}

function update(next: Partial<SessionState>) {
  state = { ...state, ...next };
  // Only the provider's tokens are kept (see the top); a local session's access token stays in memory.
  if (state.session?.method === 'oidc') sessionStorage.setItem(KEY, JSON.stringify(state.session));
  else sessionStorage.removeItem(KEY);
  if (state.warning) sessionStorage.setItem(KEY + '.warning', state.warning);
  else sessionStorage.removeItem(KEY + '.warning');
  if ('session' in next) scheduleRefresh();
  for (const l of listeners) l();
}

export const sessionStore = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get: () => state,
};

export function useSession(): SessionState {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.get);
}

/** Where to go after signing in: the page that sent the browser to /login, if it is one of ours. */
export function returnTo(): string {
  const next = new URLSearchParams(location.search).get('next');
  if (!next) return '/';
  // Resolved as the browser would ("/\host" is another origin): only a path on this origin is followed.
  const url = new URL(next, location.origin);
  return url.origin === location.origin && url.pathname !== '/login' ? url.pathname + url.search + url.hash : '/';
}

onCoreWarning((warning) => {
  if (warning !== state.warning) update({ warning });
});

function sessionFrom(method: Session['method'], tokens: ProviderTokens, oidc?: OidcClientConfig): Session {
  const refresh_at = tokens.expires_in ? Date.now() + tokens.expires_in * 750 : null;
  return { method, access_token: tokens.access_token, refresh_token: tokens.refresh_token, refresh_at, oidc };
}

/** A local session from Core's answer: its refresh token is the cookie, never seen here. */
const localSession = (res: LoginResponse) => sessionFrom('local', { ...res, refresh_token: null });

function scheduleRefresh() {
  clearTimeout(refreshTimer);
  const s = state.session;
  if (!s || (s.method === 'oidc' && !s.refresh_token) || s.refresh_at === null) return;
  refreshTimer = setTimeout(() => void refresh(s), Math.max(0, s.refresh_at - Date.now()));
}

export function getAuthConfig(): Promise<AuthConfig> {
  return request<AuthConfig>('GET', '/auth/config');
}

/**
 * Device tokens, one per username signed in with a password in this browser (localStorage: they outlive the tab).
 * Sent with the next sign-in, it makes this browser a known client to Core: failures of other clients for the
 * same username then neither lock nor slow it. It grants nothing without the password.
 */
const DEVICES_KEY = 'core.devices';

function deviceTokens(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(DEVICES_KEY) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export async function signInLocal(username: string, password: string) {
  const key = username.toLowerCase();
  const device_token = deviceTokens()[key];
  const res = await request<LoginResponse>('POST', '/auth/login', {
    body: device_token ? { username, password, device_token } : { username, password },
    headers: COOKIE_MODE,
  });
  try {
    localStorage.setItem(DEVICES_KEY, JSON.stringify({ ...deviceTokens(), [key]: res.device_token }));
  } catch {
    /* storage full or disabled: this browser stays a strange client */
  }
  update({ session: localSession(res), notice: null, warning: null, restoring: false });
}

export async function completeOidcSignIn(callbackUrl: URL): Promise<string> {
  const config = await getAuthConfig();
  if (!config.oidc) throw new Error('Single sign-on is not configured on this Core.');
  const { return_to, ...tokens } = await finishSignIn(config.oidc, callbackUrl);
  // Core itself may refuse the provider's token (a removed person, a token not issued to Core): say Core's reason
  // here, on the callback page, rather than signing in and ending the session on the first page.
  await request('GET', '/auth/me', { token: tokens.access_token });
  update({ session: sessionFrom('oidc', tokens, config.oidc), notice: null, warning: null, restoring: false });
  return return_to;
}

export function signOut(notice: string | null = null) {
  const s = state.session;
  update({ session: null, notice, warning: null });
  // Core revokes its refresh token and clears the cookie; a provider's simply expires (its own session is the
  // provider's business).
  if (s?.method === 'local') request('POST', '/auth/logout', { body: {}, headers: COOKIE_MODE }).catch(() => {});
}

const ENDED = 'Your session has ended. Sign in again.';

/** Refreshes the given session (concurrent callers share one attempt). False when it could not. */
function refresh(s: Session): Promise<boolean> {
  if (state.session !== s) return Promise.resolve(state.session !== null);
  refreshing ??= renew(s).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/**
 * Tabs share one refresh token: Core's cookie, or (OIDC) a duplicated tab's copy of sessionStorage.
 * Core (like most providers) rotates refresh tokens and takes the re-use of a rotated one for theft, ending the
 * whole session. So tabs refresh one at a time (Web Locks: the next tab's request then carries the rotated cookie),
 * and for OIDC a tab that refreshed hands the new tokens to the
 * tabs that held the old refresh token (BroadcastChannel). A tab that was still loading when that message went out
 * missed it: before refreshing, a tab asks the others whether one of them already rotated its refresh token, and
 * takes the answer instead of refreshing.
 */
type TabMessage = { from: string; to: Session } | { asking: string };
const otherTabs = typeof BroadcastChannel === 'function' ? new BroadcastChannel('core.session') : null;
/**
 * Refresh tokens this tab's session has replaced (rotated here, or taken from another tab): a tab that asks with
 * one of them gets this tab's session.
 */
const replaced = new Set<string>();
otherTabs?.addEventListener('message', (e: MessageEvent<TabMessage>) => {
  const m = e.data;
  if ('asking' in m) {
    if (replaced.has(m.asking) && state.session) otherTabs.postMessage({ from: m.asking, to: state.session });
  } else if (state.session?.refresh_token && state.session.refresh_token === m.from) {
    replaced.add(m.from);
    update({ session: m.to });
  }
});

/** How long a tab waits for another tab's answer before it refreshes itself (a tab answers within milliseconds). */
const ASK_MS = 250;

/** Asks the other tabs whether one of them rotated this session's refresh token; true when this tab took its answer. */
async function askOtherTabs(s: Session): Promise<boolean> {
  if (!otherTabs || !s.refresh_token) return false;
  otherTabs.postMessage({ asking: s.refresh_token });
  const until = Date.now() + ASK_MS;
  while (state.session === s && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
  return state.session !== s;
}

function oneTabAtATime<T>(work: () => Promise<T>): Promise<T> {
  return navigator.locks ? (navigator.locks.request('core.session.refresh', work) as Promise<T>) : work();
}

function renew(s: Session): Promise<boolean> {
  return oneTabAtATime(async () => {
    // While this tab waited (or loaded), another one may have rotated this very refresh token.
    if (state.session !== s || (await askOtherTabs(s))) return state.session !== null;
    try {
      let next: Session;
      if (s.method === 'local') {
        next = localSession(await request<LoginResponse>('POST', '/auth/refresh', { body: {}, headers: COOKIE_MODE }));
      } else {
        if (!s.refresh_token) throw new Error('no refresh token');
        next = sessionFrom('oidc', await refreshTokens(s.oidc!, s.refresh_token), s.oidc);
      }
      if (state.session !== s) return true;
      update({ session: next });
      if (!s.refresh_token) return true;
      replaced.add(s.refresh_token);
      otherTabs?.postMessage({ from: s.refresh_token, to: next });
      // Messages and locks travel separately: give the message a head start on the next tab's turn.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return true;
    } catch (err) {
      // Core unreachable: keep the session for a later try. Refused (or the provider failed): the session is over.
      if (!(err instanceof ApiError && err.status === 0) && state.session === s) signOut(ENDED);
      return false;
    }
  });
}

/** An authorized request to Core; on a 401 it refreshes once and retries; a second 401 ends the session. */
export async function api<T>(method: string, path: string, opts: Omit<RequestOptions, 'token'> = {}): Promise<T> {
  const s = state.session;
  if (!s) throw new ApiError(401, 'UNAUTHORIZED', 'You are not signed in.');
  try {
    return await request<T>(method, path, { ...opts, token: s.access_token });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 401 || !(await refresh(s)) || !state.session) throw err;
  }
  const renewed = state.session;
  try {
    return await request<T>(method, path, { ...opts, token: renewed.access_token });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && state.session === renewed) signOut(ENDED);
    throw err;
  }
}

/**
 * A tab with no session of its own (a new tab, a reload) asks Core for one with the cookie, if there is one; an
 * answer of 401 (no cookie, or a session that ended) leaves the tab signed out.
 */
function restore() {
  if (!state.restoring) return;
  void oneTabAtATime(() => request<LoginResponse>('POST', '/auth/refresh', { body: {}, headers: COOKIE_MODE }))
    .then((res) => {
      if (state.restoring) update({ session: localSession(res), restoring: false });
    })
    .catch(() => {
      if (state.restoring) update({ restoring: false });
    });
}

scheduleRefresh();
restore();
