import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { errorResponse, TransportError } from '@/server/api/errors';
import { MAX_BODY_BYTES, readWebBody } from '@/server/api/rest';
import { appRouter } from '@/server/api/root';
import { createContext } from '@/server/api/trpc';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Calls per batch: the dashboard batches a page's few queries; a long batch is one request doing the work of many. */
const MAX_TRPC_BATCH = 10;

async function handler(req: Request) {
  // The REST body limit, read with the same reader: a larger body is refused before it is parsed.
  const body = req.method === 'POST' ? await readWebBody(req, MAX_BODY_BYTES) : undefined;
  if (body === null) return errorResponse(new TransportError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_BODY_BYTES} bytes (2 MiB)`), 'tRPC');
  const request = body === undefined ? req : new Request(req.url, { method: req.method, headers: req.headers, body: body as BodyInit, signal: req.signal });
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req: request,
    router: appRouter,
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: () => createContext(request.headers, { allowSessionCookie: true }),
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`[hub] tRPC ${path ?? '?'} failed:`, error.cause ?? error.message);
    },
  });
}

export { handler as GET, handler as POST };
