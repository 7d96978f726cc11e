/**
 * Core's HTTP application: one pass per request — log and audit (outermost), body limit, the one
 * credential resolver for every non-public /api/v1 route, the route (zod-validated, role-guarded),
 * errors mapped in one place. The OpenAPI document is generated from the route definitions.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { referenceAsset, referencePage } from '@shared/api-reference';
import { withRequestId } from '@shared/logger';
import { parseBearer } from '@shared/tokens';
import { bodyLimit } from 'hono/body-limit';
import type { CoreContext } from '../context';
import { resolveCredential } from '../auth/resolve';
import { ServiceError, unauthenticated } from '../domain/errors';
import { findUnstorable, unstorable } from '../domain/text';
import { errorResponse, TEMPORARY_ADMIN_WARNING, TransportError } from './errors';
import { ensureRequestIdHeader, requestIdOf } from './requestId';
import { securityHeaders } from './securityHeaders';
import { newRouter } from './hono';
import { registerRoutes } from './routes';
import { coreMetricsRegistry, observeRequest, setRuntimeState } from '../metrics';
import { deploymentsByObservedState } from '../domain/deployments';

const BODY_LIMIT = 256 * 1024;
const OPENAPI_PATH = '/api/v1/openapi.json';
const REFERENCE_PATH = '/api/v1/reference';
const REFERENCE_ASSETS = `${REFERENCE_PATH}/assets`;
const ERRORS_DESCRIPTION =
  'The fleet service. Every answer carries X-Request-Id (the caller\u2019s own when it is 8-128 of A-Z a-z 0-9 . _ : -). ' +
  'Every error is {"code", "message", "request_id", "issues"?} (the Error schema) with tRPC\u2019s code names ' +
  '(BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, PAYLOAD_TOO_LARGE, TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE, ...), ' +
  'the same shape as the Hub\u2019s; 503 SERVICE_UNAVAILABLE carries Retry-After.';

export function buildApp(core: CoreContext) {
  const app = newRouter();
  /** Routes declaring `security: []` (sign-in, the OpenAPI document): they ignore credentials. Any other needs one. */
  const publicPaths = new Set<string>([OPENAPI_PATH, REFERENCE_PATH]);
  app.onError((err, c) => errorResponse(err, c, core.log));
  app.notFound((c) =>
    errorResponse(new TransportError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`), c, core.log),
  );

  // Every answer carries X-Request-Id (the caller's own when it looks like one); error bodies carry it as request_id.
  app.use('*', async (c, next) => {
    const requestId = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', requestId);
    c.header('X-Request-Id', requestId);
    await next();
    c.res = ensureRequestIdHeader(c.res, requestId);
  });
  // Security headers on every answer, errors and the web frontend included (./securityHeaders).
  app.use('*', securityHeaders(core.config.url));

  app.use('*', async (c, next) => {
    const at = new Date();
    const started = performance.now();
    await next();
    const tokenId = c.get('auditTokenId');
    if (tokenId) core.audit.record({ tokenId, method: c.req.method, path: c.req.path, status: c.res.status, at });
    const principal = c.get('principal');
    observeRequest(c.req.path, c.res.status, performance.now() - started);
    const level = c.req.path === '/healthz' || c.req.path === '/readyz' ? 'debug' : 'info';
    withRequestId(core.log, c.get('requestId'))[level](
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        caller_kind: principal?.kind,
        token_id: tokenId,
      },
      'request',
    );
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  // Prometheus, behind CORE_METRICS_TOKEN (off without it).
  app.get('/metrics', async (c) => {
    const token = core.config.metricsToken;
    if (!token) throw new TransportError('NOT_FOUND', '/metrics is off: set CORE_METRICS_TOKEN to serve it');
    const given = parseBearer(c.req.header('authorization')) ?? '';
    const digest = (v: string) => createHash('sha256').update(v).digest();
    if (!timingSafeEqual(digest(given), digest(token))) {
      throw new TransportError('UNAUTHORIZED', 'send Authorization: Bearer <CORE_METRICS_TOKEN>');
    }
    // Deployments by observed state and the engine, read as scraped (a database down leaves the last values).
    const runtime = await deploymentsByObservedState(core.db).catch(() => null);
    if (runtime) setRuntimeState(runtime.engine.state, runtime.by_state);
    return c.body(await coreMetricsRegistry.metrics(), 200, {
      'content-type': coreMetricsRegistry.contentType,
      'cache-control': 'no-store',
    });
  });
  app.get('/readyz', async (c) => {
    try {
      await core.database.ping();
      // The engine is reported, never judged: Core's own API serves (desired state, 503s naming the engine) without it.
      const engine = core.reconciler.engine();
      return c.json({
        status: 'ready',
        database: core.database.kind,
        engine: { ...engine, since: engine.since.toISOString() },
      });
    } catch (err) {
      return errorResponse(err, c, core.log);
    }
  });

  app.use(
    '/api/*',
    bodyLimit({
      maxSize: BODY_LIMIT,
      onError: () => {
        throw new TransportError('PAYLOAD_TOO_LARGE', `request body too large (limit ${BODY_LIMIT / 1024} KiB)`);
      },
    }),
  );

  app.use('/api/v1/*', async (c, next) => {
    if (publicPaths.has(c.req.path) || c.req.path.startsWith(`${REFERENCE_ASSETS}/`)) return next();
    let principal;
    try {
      principal = await resolveCredential(core, c.req.header('authorization'));
    } catch (err) {
      // A revoked or expired machine token's refusal is audited against it.
      if (err instanceof ServiceError && err.subject) c.set('auditTokenId', err.subject);
      throw err;
    }
    if (!principal) throw unauthenticated('this endpoint needs a credential: Authorization: Bearer <token>');
    c.set('principal', principal);
    if (principal.kind === 'machine_token') c.set('auditTokenId', principal.tokenId);
    if (principal.kind === 'temporary_admin') c.header('X-Core-Warning', TEMPORARY_ADMIN_WARNING);
    await next();
  });

  // Strings the database cannot store (NUL, lone surrogates) are a 400 naming the field, before any rule runs.
  app.use('/api/v1/*', async (c, next) => {
    let path = c.req.path;
    try {
      path = decodeURIComponent(path);
    } catch {
      /* the route answers a malformed escape */
    }
    const query = Object.fromEntries(Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
    const inUrl = unstorable(path) ? `path: ${unstorable(path)}` : findUnstorable(query);
    if (inUrl) throw new ServiceError('invalid', inUrl);
    // Every JSON media type the routes' validator parses as JSON (application/json and application/<x>+json).
    if (/^application\/(?:[\w.-]+\+)?json/i.test(c.req.header('content-type') ?? '')) {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return next(); // malformed JSON: the route's validator names it
      }
      const problem = findUnstorable(body);
      if (problem) throw new ServiceError('invalid', problem);
    }
    await next();
  });

  registerRoutes(app, core);
  for (const d of app.openAPIRegistry.definitions) {
    if (d.type === 'route' && d.route.security?.length === 0) publicPaths.add(d.route.path);
  }

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A Core session token, an OIDC access token of the configured provider, or an svm_ machine token',
  });
  app.doc31(OPENAPI_PATH, {
    openapi: '3.1.0',
    info: {
      title: 'Core API',
      version: core.config.version,
      description: ERRORS_DESCRIPTION,
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    servers: [{ url: core.config.url }],
  });

  // The API reference (Swagger UI from this machine, no CDN) rendering the document above; public like it.
  app.get(REFERENCE_PATH, (c) =>
    c.html(referencePage({ title: 'Core API reference', documentUrl: OPENAPI_PATH, assetsPath: REFERENCE_ASSETS })),
  );
  app.get(`${REFERENCE_ASSETS}/:name`, (c) => {
    const asset = referenceAsset(c.req.param('name'), c.req.header('accept-encoding'));
    if (!asset) throw new TransportError('NOT_FOUND', `no reference asset ${c.req.param('name')}`);
    return c.body(asset.body, 200, asset.headers);
  });

  serveWeb(app, core.config.webDist);
  return app;
}

/**
 * Paths that are never the app's client-side routes: the API and what API tools probe for (/docs,
 * /openapi.json, /swagger…), well-known files, and anything that looks like a file (a dot in the last
 * segment). Unknown ones answer a JSON 404 instead of the app's HTML with a 200.
 */
const NOT_THE_APP =
  /^\/(?:api(?:\/|$)|mcp\/|docs?(?:\/|$)|openapi|swagger|redoc|graphql|\.well-known\/)|\/[^/]*\.[^/]*$/i;

/** The built frontend at `/`, with the SPA fallback to index.html for client-side routes. */
function serveWeb(app: ReturnType<typeof newRouter>, dist: string) {
  const index = path.join(dist, 'index.html');
  if (fs.existsSync(dist)) app.use('*', serveStatic({ root: path.relative(process.cwd(), dist) || '.' }));
  app.get('*', (c) => {
    if (NOT_THE_APP.test(c.req.path)) return c.notFound();
    if (!fs.existsSync(index))
      throw new TransportError('NOT_FOUND', 'the web frontend is not built (npm run build -w core/web)');
    return c.html(fs.readFileSync(index, 'utf8'));
  });
}
