/**
 * REST adapter for /api/v1/*: the router's OpenAPI-mapped procedures through trpc-to-openapi.
 * The handler is built once per process (the library's fetch adapter rebuilds it per request).
 * Additions: DELETE reads a JSON body too; validation errors name their fields; every error is JSON;
 * GETs of procedures with meta.responseCache are answered through the response cache (responseCache.ts).
 */
import { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler, createProcedureCache, normalizePath, TRPC_ERROR_CODE_HTTP_STATUS } from 'trpc-to-openapi';
import { generation } from '../domain/invalidation';
import { describeIssues, type IssueLike } from './errors';
import { cacheHeaders, cacheKey, etagMatches, lookUp, store } from './responseCache';
import { appRouter } from './root';
import { createContext, type Context, type HubMeta } from './trpc';

export const REST_PREFIX = '/api/v1';
const MAX_BODY_BYTES = 2 * 1024 * 1024;

type NodeHandler = ReturnType<typeof createOpenApiNodeHttpHandler>;
let handler: NodeHandler | undefined;

function nodeHandler(): NodeHandler {
  handler ??= createOpenApiNodeHttpHandler({
    router: appRouter,
    // A context resolved before (for the response cache) rides along on the request.
    createContext: ({ req }: { req: Request & { hubContext?: Context } }) => req.hubContext ?? createContext(req.headers),
    responseMeta: ({ ctx }: { ctx?: Context }) => {
      if (!ctx) return {};
      const headers: Record<string, string> = {};
      // Headers a procedure set also go out with its error (e.g. Retry-After with a 429).
      ctx.resHeaders.forEach((value, key) => (headers[key] = value));
      return { headers };
    },
    onError: ({ error, path }: { error: { code: string; cause?: unknown; message: string }; path?: string }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`[hub] REST ${path ?? '?'} failed:`, error.cause ?? error.message);
    },
    maxBodySize: MAX_BODY_BYTES,
  } as never);
  return handler;
}

export function jsonError(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  return Response.json({ code, message, ...extra }, { status });
}

type BodyResult = { ok: true; value: unknown } | { ok: false; tooLarge?: true };

/** Reads at most MAX_BODY_BYTES (a larger body is refused without buffering it all) and parses it as JSON. */
async function readJsonBody(req: Request): Promise<BodyResult> {
  if (Number(req.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return { ok: false, tooLarge: true };
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        return { ok: false, tooLarge: true };
      }
      chunks.push(value);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks)); // like Request.text(): BOM dropped, bad bytes replaced
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function bodyError(parsed: { tooLarge?: true }) {
  return parsed.tooLarge
    ? jsonError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_BODY_BYTES} bytes (2 MiB)`)
    : jsonError(400, 'PARSE_ERROR', 'Request body is not valid JSON');
}

export async function handleRest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  url.pathname = url.pathname.slice(REST_PREFIX.length) || '/';
  let body: unknown;

  if (req.method === 'DELETE') {
    // trpc-to-openapi reads DELETE input from the query string only: fold a JSON body into it.
    const parsed = await readJsonBody(req);
    if (!parsed.ok) return bodyError(parsed);
    if (parsed.value !== undefined) {
      if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
        return jsonError(400, 'BAD_REQUEST', 'Request body must be a JSON object');
      }
      for (const [key, value] of Object.entries(parsed.value)) {
        if (value !== null && typeof value === 'object') return jsonError(400, 'BAD_REQUEST', `Invalid input: ${key}: must be a scalar`);
        if (!url.searchParams.has(key)) url.searchParams.set(key, String(value));
      }
    }
  } else if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') {
    const contentType = req.headers.get('content-type') ?? '';
    if (!contentType.toLowerCase().startsWith('application/json')) {
      return jsonError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be JSON (Content-Type: application/json)');
    }
    const parsed = await readJsonBody(req);
    if (!parsed.ok) return bodyError(parsed);
    body = parsed.value ?? {};
  }

  if (req.method === 'GET') {
    const policy = responseCachePolicy(url.pathname);
    if (policy) return cachedGet(req, url);
  }
  return runProcedure(req, url, body);
}

type ProcedureLookup = ReturnType<typeof createProcedureCache>;
let procedureAt: ProcedureLookup | undefined;

function responseCachePolicy(pathname: string) {
  procedureAt ??= createProcedureCache(appRouter as never);
  const match = procedureAt('GET', normalizePath(pathname));
  return (match?.procedure?.procedure._def.meta as HubMeta | undefined)?.responseCache;
}

function errorResponse(err: unknown): Response {
  if (!(err instanceof TRPCError)) throw err;
  return jsonError(TRPC_ERROR_CODE_HTTP_STATUS[err.code] ?? 500, err.code, err.message);
}

/** A GET whose answer the response cache may hold (see responseCache.ts). */
async function cachedGet(req: Request, url: URL): Promise<Response> {
  let ctx: Context;
  try {
    ctx = await createContext(req.headers);
  } catch (err) {
    return errorResponse(err);
  }
  const key = cacheKey(ctx.principal, url);
  let entry = lookUp(key);
  if (entry) {
    for (const effect of entry.repeat) effect();
  } else {
    const computedUnder = generation('catalog');
    const response = await runProcedure(req, url, undefined, ctx);
    if (response.status !== 200) return response;
    entry = store(key, computedUnder, await response.text(), ctx.readEffects);
  }
  const headers = cacheHeaders(ctx.principal, entry.etag);
  if (etagMatches(req.headers.get('if-none-match'), entry.etag)) return new Response(null, { status: 304, headers });
  return new Response(entry.body, { status: 200, headers: { ...headers, 'content-type': 'application/json' } });
}

/** Runs the procedure through trpc-to-openapi's handler: url without the prefix, body already parsed. */
async function runProcedure(req: Request, url: URL, body: unknown, hubContext?: Context): Promise<Response> {
  const rewrittenUrl = url.toString();
  const nodeReq = new Proxy(req, {
    get: (target, prop) => {
      if (prop === 'url') return rewrittenUrl;
      if (prop === 'body') return body;
      if (prop === 'hubContext') return hubContext;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const response = await new Promise<Response>((resolve) => {
    const headers = new Headers();
    let status = 200;
    const res = {
      setHeader: (key: string, value: string | string[]) => {
        if (typeof value === 'string') headers.set(key, value);
        else for (const v of value) headers.append(key, v);
      },
      get statusCode() {
        return status;
      },
      set statusCode(code: number) {
        status = code;
      },
      end: (text?: string) => resolve(new Response(status === 204 || status === 304 ? null : text, { status, headers })),
      on: () => {},
      once: () => {},
    };
    void (nodeHandler() as unknown as (req: unknown, res: unknown) => Promise<void>)(nodeReq, res);
  });
  if (response.status === 400) return renameValidationError(response);
  return response;
}

/** trpc-to-openapi answers "Input validation failed" with a list of issues: name the fields in the message. */
async function renameValidationError(response: Response): Promise<Response> {
  const body = (await response.json()) as { message?: string; code?: string; issues?: IssueLike[] };
  if (body.issues && body.issues.length > 0) body.message = describeIssues(body.issues);
  return Response.json({ code: body.code ?? 'BAD_REQUEST', message: body.message, issues: body.issues }, { status: 400, headers: response.headers });
}
