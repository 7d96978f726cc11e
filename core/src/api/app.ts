/**
 * Core's HTTP application: one pass per request — log and audit (outermost), body limit, the one
 * credential resolver for every non-public /api/v1 route, the route (zod-validated, role-guarded),
 * errors mapped in one place. The OpenAPI document is generated from the route definitions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { bodyLimit } from 'hono/body-limit';
import type { CoreContext } from '../context';
import { resolveCredential } from '../auth/resolve';
import { CoreError, unauthorized } from '../domain/errors';
import { errorResponse, TEMPORARY_ADMIN_WARNING } from './errors';
import { newRouter } from './hono';
import { registerRoutes } from './routes';

const BODY_LIMIT = 256 * 1024;
const OPENAPI_PATH = '/api/v1/openapi.json';

export function buildApp(core: CoreContext) {
  const app = newRouter();
  /** Routes declared without `security` (sign-in, the OpenAPI document): they ignore credentials. */
  const publicPaths = new Set<string>([OPENAPI_PATH]);
  app.onError((err, c) => errorResponse(err, c, core.log));
  app.notFound((c) => c.json({ code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` }, 404));

  app.use('*', async (c, next) => {
    const at = new Date();
    const started = performance.now();
    await next();
    const tokenId = c.get('auditTokenId');
    if (tokenId) core.audit.record({ tokenId, method: c.req.method, path: c.req.path, status: c.res.status, at });
    const principal = c.get('principal');
    const level = c.req.path === '/healthz' || c.req.path === '/readyz' ? 'debug' : 'info';
    core.log[level]('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      caller_kind: principal?.kind,
      token_id: tokenId,
    });
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await core.database.ping();
      return c.json({ status: 'ready', database: core.database.kind });
    } catch {
      return c.json({ code: 'unavailable', message: 'the database is not reachable' }, 503);
    }
  });

  app.use(
    '/api/*',
    bodyLimit({
      maxSize: BODY_LIMIT,
      onError: (c) => c.json({ code: 'invalid_request', message: `request body too large (limit ${BODY_LIMIT / 1024} KiB)` }, 413),
    }),
  );

  app.use('/api/v1/*', async (c, next) => {
    if (publicPaths.has(c.req.path)) return next();
    let principal;
    try {
      principal = await resolveCredential(core, c.req.header('authorization'));
    } catch (err) {
      // A revoked or expired machine token's refusal is audited against it.
      if (err instanceof CoreError && err.details.machineTokenId) c.set('auditTokenId', err.details.machineTokenId);
      throw err;
    }
    if (!principal) throw unauthorized('this endpoint needs a credential: Authorization: Bearer <token>');
    c.set('principal', principal);
    if (principal.kind === 'machine_token') c.set('auditTokenId', principal.tokenId);
    if (principal.kind === 'temporary_admin') c.header('X-Core-Warning', TEMPORARY_ADMIN_WARNING);
    await next();
  });

  registerRoutes(app, core);
  for (const d of app.openAPIRegistry.definitions) {
    if (d.type === 'route' && !d.route.security) publicPaths.add(d.route.path);
  }

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A Core session token, an OIDC access token of the configured provider, or an svm_ machine token',
  });
  app.doc31(OPENAPI_PATH, {
    openapi: '3.1.0',
    info: { title: 'Core API', version: core.config.version, description: 'The fleet service. Errors are {code, message}.' },
    servers: [{ url: core.config.url }],
  });

  serveWeb(app, core.config.webDist);
  return app;
}

/** The built frontend at `/`, with the SPA fallback to index.html for client-side routes. */
function serveWeb(app: ReturnType<typeof newRouter>, dist: string) {
  const index = path.join(dist, 'index.html');
  if (fs.existsSync(dist)) app.use('*', serveStatic({ root: path.relative(process.cwd(), dist) || '.' }));
  app.get('*', (c) => {
    if (c.req.path.startsWith('/api/')) return c.notFound();
    if (!fs.existsSync(index)) return c.json({ code: 'not_found', message: 'the web frontend is not built (npm run build -w core/web)' }, 404);
    return c.html(fs.readFileSync(index, 'utf8'));
  });
}
