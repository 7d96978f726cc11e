/**
 * REST /api/v1/*: one pass per request over the router's OpenAPI-mapped procedures. trpc-to-openapi
 * provides the route table (and the OpenAPI document, openapi.ts); this dispatcher does the rest:
 * match the route once (the match carries the procedure, its meta and its cache policy), read the input
 * once (query string, JSON body — DELETE's too — and path parameters; no schema is coerced in place),
 * build the context once and call the procedure with it, write the answer once. Errors go through
 * errors.ts; cacheable GETs through the response cache (responseCache.ts).
 *
 * Transport-neutral: a RestRequest in, a RestAnswer out. Adapters: handleRest (Fetch: the Next route,
 * the tests) and server/http/serve.ts (Node's http, the production fast path).
 */
import type { AnyProcedure, ProcedureType } from '@trpc/server';
import { createProcedureCache, normalizePath } from 'trpc-to-openapi';
import { credentialFromHeaders, type HeaderReader } from '../auth/credentials';
import { sourceAddress } from './clientAddress';
import { errorBody, logUnexpected, toHttpError, TransportError } from './errors';
import { inRequestContext } from '../log';
import { admit, limitSubjectOf, RateLimitRefusal, rateLimitHeaders, type Admitted } from './rateLimit';
import {
  cachedAnswer,
  cacheKeyOf,
  cacheKeysOf,
  computeOnce,
  lookUp,
  store,
  type CacheKeys,
  type CachedResponse,
} from './responseCache';
import { appRouter } from './root';
import { createContext, type Context, type HubMeta } from './trpc';

export const REST_PREFIX = '/api/v1';
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface RestRequest {
  method: string;
  /** Path and query string as sent, e.g. /api/v1/catalog/templates?page=2 */
  url: string;
  headers: HeaderReader;
  /** The body, or null when it is larger than `limit` bytes (then it is not read further). */
  readBody(limit: number): Promise<Uint8Array | null>;
}

export interface RestAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

interface Route {
  procedure: AnyProcedure;
  /** The procedure's dotted path in the router (e.g. catalog.listTemplates). */
  path: string;
  type: ProcedureType;
  meta: HubMeta;
  pathInput: Record<string, string>;
}

type RouteTable = ReturnType<typeof createProcedureCache>;
let routeTable: RouteTable | undefined;

/**
 * Matches already made, by method and path: the table is walked with regular expressions in declaration order,
 * which costs more than the rest of a cached answer. Bounded: cleared when full (paths with ids vary).
 */
const matched = new Map<string, Route | null>();
const MATCHED_MAX = 4_096;

/** The one route match: trpc-to-openapi's table (declaration order, case-insensitive), built once per process. */
function matchRoute(method: string, pathname: string): Route | null {
  const key = `${method} ${pathname}`;
  let route = matched.get(key);
  if (route === undefined) {
    route = matchInTable(method, pathname);
    if (matched.size >= MATCHED_MAX) matched.clear();
    matched.set(key, route);
  }
  return route;
}

function matchInTable(method: string, pathname: string): Route | null {
  routeTable ??= createProcedureCache(appRouter as never);
  const match = routeTable(method as never, normalizePath(pathname));
  if (!match?.procedure) return null;
  const { procedure, path, type } = match.procedure as unknown as {
    procedure: AnyProcedure;
    path: string;
    type: ProcedureType;
  };
  const pathInput: Record<string, string> = {};
  for (const [key, value] of Object.entries(match.pathInput)) {
    try {
      pathInput[key] = decodeURIComponent(value);
    } catch {
      pathInput[key] = value;
    }
  }
  return { procedure, path, type, meta: (procedure._def.meta ?? {}) as HubMeta, pathInput };
}

/** A request target as dispatch needs it, parsed once per distinct method and URL (fleets poll the same few). */
interface Target {
  url: URL;
  pathname: string;
  route: Route | null;
  /** A cached GET's parameters that its procedure reads, in one order: the response cache's key (knownParams). */
  cacheQuery: string | null;
  /** The response cache's keys of this target, by caller (responseCache.ts cacheKeyOf): made once per caller. */
  cacheKeys: CacheKeys;
}
/** By method, then by URL as sent: no key string is built per request (a poll's URL is looked up as it came). */
const targets = new Map<string, Map<string, Target>>();

function targetOf(method: string, rawUrl: string): Target {
  let byUrl = targets.get(method);
  if (!byUrl) targets.set(method, (byUrl = new Map()));
  let target = byUrl.get(rawUrl);
  if (!target) {
    const url = new URL(rawUrl, 'http://hub');
    const pathname = url.pathname.slice(REST_PREFIX.length) || '/';
    const route = matchRoute(method, pathname);
    const cached = method === 'GET' && route?.meta.responseCache;
    const cacheQuery = cached ? knownParams(route, url.searchParams) : null;
    target = { url, pathname, route, cacheQuery, cacheKeys: cacheKeysOf(pathname, cacheQuery ?? '') };
    if (byUrl.size >= MATCHED_MAX) byUrl.clear();
    byUrl.set(rawUrl, target);
  }
  return target;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function errorAnswer(err: unknown, where: string): RestAnswer {
  const e = toHttpError(err);
  logUnexpected(where, e);
  const limited = err instanceof RateLimitRefusal ? rateLimitHeaders(err.status) : {};
  return {
    status: e.status,
    headers: { ...JSON_HEADERS, ...e.headers, ...limited },
    body: JSON.stringify(errorBody(e)),
  };
}

export { limitSubjectOf };

/** The context of a call, built once, under the rate limits (rateLimit.ts). */
function admitRest(headers: HeaderReader) {
  const address = sourceAddress(headers)?.ip ?? 'unknown';
  return admit(address, credentialFromHeaders(headers) !== null, () => createContext(headers), subjectOfContext);
}
const subjectOfContext = (ctx: Context) => limitSubjectOf(ctx.principal);

/** Query parameters as input: one value → string, repeated → array (own properties only). */
function queryInput(params: URLSearchParams): Record<string, unknown> {
  const input = new Map<string, string | string[]>();
  for (const [key, value] of params) {
    const had = input.get(key);
    input.set(key, had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value]);
  }
  return Object.fromEntries(input);
}

async function bodyInput(req: RestRequest): Promise<Record<string, unknown> | undefined> {
  const bytes = await req.readBody(MAX_BODY_BYTES);
  if (bytes === null)
    throw new TransportError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_BODY_BYTES} bytes (2 MiB)`);
  const text = new TextDecoder().decode(bytes); // like Request.text(): BOM dropped, bad bytes replaced
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TransportError('PARSE_ERROR', 'Request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TransportError('BAD_REQUEST', 'Request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** The procedure's input: the query string (GET, DELETE), the JSON body (POST, PUT, PATCH, DELETE), the path parameters. */
async function readInput(req: RestRequest, route: Route, url: URL): Promise<Record<string, unknown>> {
  if (req.method === 'GET') return { ...queryInput(url.searchParams), ...route.pathInput };
  if (req.method === 'DELETE') {
    // The spec's DELETEs carry their input in a JSON body; query parameters work too (and win).
    return { ...(await bodyInput(req)), ...queryInput(url.searchParams), ...route.pathInput };
  }
  const contentType = req.headers.get('content-type') ?? '';
  if (!contentType.toLowerCase().startsWith('application/json')) {
    throw new TransportError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be JSON (Content-Type: application/json)');
  }
  return { ...(await bodyInput(req)), ...route.pathInput };
}

const inputKeys = new WeakMap<AnyProcedure, Set<string>>();

/**
 * The query parameters the procedure reads (its input object's keys), sorted (the same answer for the same
 * parameters in any order): the response cache keys on these only, so unknown parameters (ignored by the
 * procedure) cannot mint new cache entries.
 */
function knownParams(route: Route, params: URLSearchParams): string {
  let keys = inputKeys.get(route.procedure);
  if (!keys) {
    const [input] = (route.procedure._def as { inputs?: { shape?: Record<string, unknown> }[] }).inputs ?? [];
    keys = new Set(Object.keys(input?.shape ?? {}));
    inputKeys.set(route.procedure, keys);
  }
  const known = [...params].filter(([name]) => keys.has(name));
  known.sort(([a, x], [b, y]) => (a === b ? x.localeCompare(y) : a.localeCompare(b)));
  return new URLSearchParams(known).toString();
}

function call(route: Route, ctx: Context, input: unknown): Promise<unknown> {
  return route.procedure({
    ctx,
    path: route.path,
    type: route.type,
    getRawInput: async () => input,
    signal: undefined,
    batchIndex: 0,
  });
}

/**
 * One REST request's answer; never throws (a failure is an error answer). Synchronous when nothing has to be
 * awaited — a cached GET whose caller came from the credential cache, the fleet's 304 poll: no promise is made for
 * it (each would pay AsyncLocalStorage's hook); otherwise the promise of the answer.
 */
export function dispatchRest(req: RestRequest): RestAnswer | Promise<RestAnswer> {
  if (req.method === 'HEAD') return headAnswer(req);
  const target = targetOf(req.method, req.url);
  const { pathname, route } = target;
  try {
    if (!route) throw new TransportError('NOT_FOUND', `No endpoint ${req.method} ${REST_PREFIX}${pathname}`);
    const admission = admitRest(req.headers);
    const answer =
      admission instanceof Promise
        ? admission.then((admitted) => answerFor(req, target, route, admitted))
        : answerFor(req, target, route, admission);
    return answer instanceof Promise ? answer.catch((err: unknown) => failed(err, req.method, pathname)) : answer;
  } catch (err) {
    return failed(err, req.method, pathname);
  }
}

function failed(err: unknown, method: string, pathname: string): RestAnswer {
  return errorAnswer(err, `REST ${method} ${pathname}`);
}

/** A GET without its body (load balancers, link checkers): same status and headers. */
async function headAnswer(req: RestRequest): Promise<RestAnswer> {
  const answer = await dispatchRest({
    method: 'GET',
    url: req.url,
    headers: req.headers,
    readBody: (limit) => req.readBody(limit),
  });
  return { ...answer, body: null };
}

/** The admitted caller's answer: from the response cache when it holds it (then synchronously), else computed. */
function answerFor(
  req: RestRequest,
  target: Target,
  route: Route,
  { caller: ctx, headers: limitHeaders }: Admitted<Context>,
): RestAnswer | Promise<RestAnswer> {
  if (target.cacheQuery === null) return computed(req, target, route, ctx, limitHeaders);
  // A cached GET: its input (the query string) is read only when the answer has to be computed.
  const key = cacheKeyOf(target.cacheKeys, ctx.principal);
  const entry = lookUp(key);
  if (entry) return fromCache(entry, req, ctx, limitHeaders);
  return computeEntry(req, target, route, ctx, key).then((stored) => fromCache(stored, req, ctx, limitHeaders));
}

async function computed(
  req: RestRequest,
  target: Target,
  route: Route,
  ctx: Context,
  limitHeaders: Record<string, string>,
): Promise<RestAnswer> {
  const input = await readInput(req, route, target.url);
  return {
    status: 200,
    headers: { ...JSON_HEADERS, ...limitHeaders },
    body: JSON.stringify(await call(route, ctx, input)) ?? null,
  };
}

/** A missed answer, computed once for every identical request that misses meanwhile (responseCache.ts computeOnce). */
function computeEntry(req: RestRequest, target: Target, route: Route, ctx: Context, key: string) {
  return computeOnce(key, async (computedUnder) => {
    const input = await readInput(req, route, target.url);
    return store(key, computedUnder, JSON.stringify(await call(route, ctx, input)), ctx.readEffects);
  });
}

function fromCache(
  entry: CachedResponse,
  req: RestRequest,
  ctx: Context,
  limitHeaders: Record<string, string>,
): RestAnswer {
  const answer = cachedAnswer(entry, ctx.principal, req.headers);
  for (const effect of entry.repeat) effect(ctx.principal, answer.status);
  // The answer's own headers object (made for this request): extended, not copied twice.
  Object.assign(answer.headers, limitHeaders);
  return answer;
}

/** The Fetch adapter (Next's route handler, the tests). */
export function handleRest(req: Request): Promise<Response> {
  return inRequestContext(req, async () => {
    const url = new URL(req.url);
    const readBody = (limit: number) => readWebBody(req, limit);
    const answer = await dispatchRest({
      method: req.method,
      url: url.pathname + url.search,
      headers: req.headers,
      readBody,
    });
    return new Response(answer.body as BodyInit | null, { status: answer.status, headers: answer.headers });
  });
}

/** A Fetch request's body up to `limit` bytes, or null when it is larger (then it is not read further). */
export async function readWebBody(req: Request, limit: number): Promise<Uint8Array | null> {
  if (Number(req.headers.get('content-length') ?? 0) > limit) return null;
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
