import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { errorResponse, TransportError } from '@/server/api/errors';
import { MAX_BODY_BYTES, readWebBody } from '@/server/api/rest';
import { appRouter } from '@/server/api/root';
import { createTRPCContext, trpcResponseMeta } from '@/server/api/trpc';
import { inRequestContext, requestLogger } from '@/server/log';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Calls per batch: the dashboard batches a page's few queries; a long batch is one request doing the work of many. */
const MAX_TRPC_BATCH = 10;

async function serve(req: Request) {
  // The REST body limit, read with the same reader: a larger body is refused before it is parsed.
  const body = req.method === 'POST' ? await readWebBody(req, MAX_BODY_BYTES) : undefined;
  if (body === null)
    return errorResponse(
      new TransportError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_BODY_BYTES} bytes (2 MiB)`),
      'tRPC',
    );
  const request =
    body === undefined
      ? req
      : new Request(req.url, { method: req.method, headers: req.headers, body: body as BodyInit, signal: req.signal });
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req: request,
    router: appRouter,
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: () => createTRPCContext(request.headers, { allowSessionCookie: true }),
    responseMeta: trpcResponseMeta,
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR')
        requestLogger().error({ err: error.cause ?? error, path: path ?? '?' }, 'tRPC call failed');
    },
  });
}

/** /api/trpc: the dashboard's API; every answer carries X-Request-Id, every error its request_id. */
function handler(req: Request) {
  return inRequestContext(req, () => serve(req));
}

export { handler as GET, handler as POST };
