/** Sign-in endpoints (public: they ignore credentials) and `GET /auth/me`. */
import { createRoute, z } from '@hono/zod-openapi';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { CoreContext } from '../../context';
import { isActive } from '../../domain/oidcSettings';
import { login, logout, refresh } from '../../domain/sessions';
import { TEMPORARY_ADMIN_WARNING } from '../errors';
import { caller, type Router } from '../hono';
import { BEARER, errors, json, jsonBody, RoleSchema } from '../schemas';

export const PUBLIC_PATHS = new Set(['/api/v1/auth/config', '/api/v1/auth/login', '/api/v1/auth/refresh', '/api/v1/auth/logout', '/api/v1/openapi.json']);

const SessionSchema = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    user: z.object({
      id: z.string().nullable(),
      email: z.string(),
      name: z.string(),
      role: RoleSchema,
      kind: z.enum(['local', 'temporary_admin']),
    }),
  })
  .openapi('Session');

const LoginSchema = z.strictObject({ username: z.string().min(1).max(320), password: z.string().min(1).max(1024) }).openapi('LoginRequest');
const RefreshSchema = z.strictObject({ refresh_token: z.string().min(1).max(512) }).openapi('RefreshRequest');

const AuthConfigSchema = z
  .object({
    oidc: z
      .object({ issuer: z.string(), client_id: z.string(), audience: z.string().nullable(), scopes: z.string(), provider_name: z.string() })
      .nullable(),
    local_login: z.literal(true),
  })
  .openapi('AuthConfig');

const MeSchema = z
  .object({
    kind: z.enum(['local', 'oidc', 'temporary_admin', 'machine_token']),
    role: RoleSchema,
    temporary: z.boolean(),
    user: z.object({ id: z.string().nullable(), email: z.string(), name: z.string() }).nullable(),
    token_id: z.string().nullable(),
  })
  .openapi('Me');

const authConfig = createRoute({
  method: 'get',
  path: '/api/v1/auth/config',
  tags: ['auth'],
  summary: 'How to sign in (public)',
  responses: { 200: json(AuthConfigSchema, 'Sign-in options') },
});

const loginRoute = createRoute({
  method: 'post',
  path: '/api/v1/auth/login',
  tags: ['auth'],
  summary: 'Sign in a local user or the temporary admin (public)',
  request: { body: jsonBody(LoginSchema) },
  responses: { 200: json(SessionSchema, 'Signed in'), ...errors(400, 401, 429) },
});

const refreshRoute = createRoute({
  method: 'post',
  path: '/api/v1/auth/refresh',
  tags: ['auth'],
  summary: 'Rotate a refresh token (public)',
  request: { body: jsonBody(RefreshSchema) },
  responses: { 200: json(SessionSchema, 'New tokens'), ...errors(400, 401) },
});

const logoutRoute = createRoute({
  method: 'post',
  path: '/api/v1/auth/logout',
  tags: ['auth'],
  summary: 'End the session of a refresh token (public)',
  request: { body: jsonBody(RefreshSchema) },
  responses: { 204: { description: 'Signed out' }, ...errors(400) },
});

const meRoute = createRoute({
  method: 'get',
  path: '/api/v1/auth/me',
  tags: ['auth'],
  summary: 'Who is calling',
  security: BEARER,
  responses: { 200: json(MeSchema, 'The caller'), ...errors(401) },
});

function providerName(issuer: string) {
  try {
    return new URL(issuer).hostname;
  } catch {
    return issuer;
  }
}

export function registerAuthRoutes(app: Router, core: CoreContext) {
  app.openapi(authConfig, async (c) => {
    const oidc = await core.oidcSettings.current();
    return c.json(
      {
        oidc: isActive(oidc)
          ? { issuer: oidc.issuer, client_id: oidc.clientId, audience: oidc.audience, scopes: oidc.scopes, provider_name: providerName(oidc.issuer) }
          : null,
        local_login: true as const,
      },
      200,
    );
  });

  app.openapi(loginRoute, async (c) => {
    const { username, password } = c.req.valid('json');
    const address = getConnInfo(c).remote.address ?? 'unknown';
    const session = await login(core, { username, password, address });
    if (session.user.kind === 'temporary_admin') c.header('X-Core-Warning', TEMPORARY_ADMIN_WARNING);
    core.log.info('signed in', { actor: session.user.email, kind: session.user.kind, address });
    return c.json(session, 200);
  });

  app.openapi(refreshRoute, async (c) => {
    const session = await refresh(core, c.req.valid('json').refresh_token);
    if (session.user.kind === 'temporary_admin') c.header('X-Core-Warning', TEMPORARY_ADMIN_WARNING);
    return c.json(session, 200);
  });

  app.openapi(logoutRoute, async (c) => {
    await logout(core.db, c.req.valid('json').refresh_token);
    return c.body(null, 204);
  });

  app.openapi(meRoute, (c) => {
    const p = caller(c);
    const user =
      p.kind === 'local' || p.kind === 'oidc'
        ? { id: p.userId, email: p.email, name: p.name }
        : p.kind === 'temporary_admin'
          ? { id: null, email: p.username, name: p.username }
          : null;
    return c.json(
      { kind: p.kind, role: p.role, temporary: p.kind === 'temporary_admin', user, token_id: p.kind === 'machine_token' ? p.tokenId : null },
      200,
    );
  });
}
