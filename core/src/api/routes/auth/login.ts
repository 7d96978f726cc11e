/** POST /api/v1/auth/login (public): a local user or the temporary admin signs in. */
import { getConnInfo } from '@hono/node-server/conninfo';
import { createRoute, z } from '@hono/zod-openapi';
import { clientAddress } from '../../../auth/clientAddress';
import type { CoreContext } from '../../../context';
import { login } from '../../../domain/sessions';
import { TEMPORARY_ADMIN_WARNING } from '../../errors';
import type { Router } from '../../hono';
import { errors, json, jsonBody } from '../../schemas';
import { setRefreshCookie, wantsCookie } from './cookie';
import { LoginSessionSchema } from './schemas';

const LoginSchema = z
  .strictObject({
    username: z.string().min(1).max(320),
    password: z.string().min(1).max(1024),
    device_token: z.string().min(1).max(4096).optional().openapi({
      description:
        'The device_token of this client’s last sign-in: while valid for this username, failures of other clients neither lock nor slow this one',
    }),
  })
  .openapi('LoginRequest');

const route = createRoute({
  method: 'post',
  path: '/api/v1/auth/login',
  tags: ['auth'],
  operationId: 'createSession',
  security: [],
  summary: 'Sign in a local user or the temporary admin (public)',
  request: { body: jsonBody(LoginSchema) },
  responses: { 200: json(LoginSessionSchema, 'Signed in'), ...errors(400, 401, 429) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { username, password, device_token: deviceToken } = c.req.valid('json');
    const address = clientAddress(
      getConnInfo(c).remote.address,
      c.req.header('x-forwarded-for'),
      core.config.trustedProxies,
    );
    const session = await login(core, { username, password, address, deviceToken });
    if (session.user.kind === 'temporary_admin') c.header('X-Core-Warning', TEMPORARY_ADMIN_WARNING);
    core.log.info({ actor: session.user.email, kind: session.user.kind, address }, 'signed in');
    if (!wantsCookie(c)) return c.json(session, 200);
    // The web frontend: the refresh token in an HttpOnly cookie, out of every script's reach (cookie.ts).
    const { refresh_token, ...rest } = session;
    setRefreshCookie(c, core, refresh_token);
    return c.json(rest, 200);
  });
