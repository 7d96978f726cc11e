/**
 * The web frontend's refresh token, in a cookie no script can read (issue 37): HttpOnly, SameSite=Strict, Secure
 * unless Core is served over plain http (loopback development), and sent only to /api/v1/auth (refresh and logout;
 * the path attribute is a prefix, so login, config and me receive it too and ignore it).
 *
 * A client asks for it with the X-Core-Session: cookie header on login and refresh; the answer then carries no
 * refresh_token. Using the cookie (a refresh or logout without refresh_token in the body) needs the same header,
 * which no cross-site form can send and no cross-origin script can send without a CORS preflight Core never grants,
 * and an Origin, when the browser sends one, that is Core's own: SameSite=Strict alone is the browser's promise.
 * API clients keep sending refresh_token in the body, as before.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CoreContext } from '../../../context';
import { ServiceError } from '../../../domain/errors';

export const REFRESH_COOKIE = 'core_refresh';
export const COOKIE_MODE_HEADER = 'x-core-session';
const COOKIE_PATH = '/api/v1/auth';

/** True when the client asked for the cookie (X-Core-Session: cookie). */
export function wantsCookie(c: Context): boolean {
  return c.req.header(COOKIE_MODE_HEADER) === 'cookie';
}

export function setRefreshCookie(c: Context, core: CoreContext, refreshToken: string) {
  // No Max-Age: the cookie ends with the browser; the token's own 30-day life and rotation still bound it.
  setCookie(c, REFRESH_COOKIE, refreshToken, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'Strict',
    secure: new URL(core.config.url).protocol === 'https:',
  });
}

export function clearRefreshCookie(c: Context, core: CoreContext) {
  deleteCookie(c, REFRESH_COOKIE, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'Strict',
    secure: new URL(core.config.url).protocol === 'https:',
  });
}

/**
 * The refresh token to use: the body's, or else the cookie's, the latter only for a same-origin request that
 * carries X-Core-Session: cookie. Null when there is none (refresh answers 401, logout has nothing to end).
 */
export function refreshTokenOf(c: Context, core: CoreContext, fromBody: string | undefined): string | null {
  if (fromBody) return fromBody;
  if (!wantsCookie(c)) {
    throw new ServiceError('invalid', 'refresh_token is required (or the X-Core-Session: cookie header)', {
      issues: [{ path: ['refresh_token'], message: 'Required' }],
    });
  }
  const origin = c.req.header('origin');
  const own = [new URL(core.config.url).origin, new URL(c.req.url).origin];
  if ((origin && !own.includes(origin)) || c.req.header('sec-fetch-site') === 'cross-site') {
    throw new ServiceError('forbidden', 'the session cookie is only accepted from Core’s own pages');
  }
  return getCookie(c, REFRESH_COOKIE) ?? null;
}
