/**
 * Node http ⇄ Fetch API bridge for the Hub's own route handlers (REST, /mcp): the request body streams
 * in (small bodies are read at once), the response streams out as it is produced (SSE events are
 * written the moment they arrive), and request.signal aborts when the client goes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export type FetchHandler = (req: Request) => Response | Promise<Response>;

/** Bodies up to this size (by Content-Length) are read into memory before the handler runs. */
const BUFFERED_BODY_BYTES = 256 * 1024;

async function readAll(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

export async function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Promise<Request> {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  // As `next start` does: the socket's address when no proxy said otherwise (see support/addresses.ts).
  if (!headers.has('x-forwarded-for') && req.socket.remoteAddress) headers.set('x-forwarded-for', req.socket.remoteAddress);
  const method = req.method ?? 'GET';
  let body: Uint8Array | ReadableStream<Uint8Array> | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    const length = Number(req.headers['content-length'] ?? NaN);
    body = Number.isFinite(length) && length <= BUFFERED_BODY_BYTES ? await readAll(req) : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
  }
  return new Request(new URL(req.url ?? '/', origin), { method, headers, body, signal, duplex: 'half' } as unknown as RequestInit);
}

export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key === 'set-cookie') return;
    headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } catch {
    // The handler's stream failed or the client left: nothing more to send.
  }
  res.end();
}

/** Serves one request with a Fetch handler; failures become a JSON 500 without details. */
export async function serveWithFetchHandler(handler: FetchHandler, req: IncomingMessage, res: ServerResponse, origin: string) {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  try {
    await writeResponse(await handler(await toRequest(req, origin, controller.signal)), res);
  } catch (err) {
    console.error('[hub] request failed:', err);
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(res.headersSent ? undefined : JSON.stringify({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' }));
  }
}
