/** The Hono environment of Core's API and the builders that narrow the caller. */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { actorOf, type Actor } from '../domain/activity';
import { ServiceError } from '../domain/errors';
import type { Principal } from '../domain/principal';
import { validationError } from './errors';

export type AppEnv = {
  Variables: {
    /** Set by the authentication middleware on every non-public route. */
    principal: Principal;
    /** The machine token a request was made with (valid or refused), for the audit. */
    auditTokenId: string | undefined;
    /** This request's id (X-Request-Id), set first for every request. */
    requestId: string;
  };
};

export const newRouter = () =>
  new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });

export type Router = ReturnType<typeof newRouter>;

export function caller(c: Context<AppEnv>): Principal {
  const principal = c.get('principal');
  if (!principal) throw new ServiceError('unauthenticated', 'missing credentials');
  return principal;
}

/** The caller as the activity log records them (a REST write). */
export const actor = (c: Context<AppEnv>): Actor => actorOf(caller(c));

/** Route middleware: only admins pass. Readonly callers get 403 with `message`. */
export const requireAdmin =
  (message = 'this needs the admin role; readonly callers may only read'): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (caller(c).role !== 'admin') throw new ServiceError('forbidden', message);
    await next();
  };
