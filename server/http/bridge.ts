/**
 * Node http adapters for the Hub's own handlers in the production server:
 *  - REST: Node's request read directly into the dispatcher (server/api/rest.ts), its answer written once;
 *  - /mcp, through a Fetch bridge: the request body streams in (small bodies are read at once), the
 *    response streams out as it is produced (SSE events are written the moment they arrive), and
 *    request.signal aborts when the client goes away.
 * A failure of a handler is answered by the error model (server/api/errors.ts): 500 without details.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { errorBody, logUnexpected, toHttpError, TransportError } from '../api/errors';
import { dispatchRest, type RestAnswer } from '../api/rest';

export type FetchHandler = (req: Request) => Response | Promise<Response>;

/** Bodies up to this size (by Content-Length) are read into memory before the handler runs. */
const BUFFERED_BODY_BYTES = 256 * 1024;

async function readAll(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/**
 * X-Forwarded-For as the Hub's handlers read it: the request's own header with the TCP peer's address
 * appended, as a reverse proxy appends it (nginx's $proxy_add_x_forwarded_for). The last entry is thus
 * always the real peer, which a client cannot forge; entries to its left count only when the peer is one of
 * HUB_TRUSTED_PROXIES (support/addresses.ts). Null only when there is neither a header nor a peer address.
 */
export function forwardedFor(req: IncomingMessage): string | null {
  const raw = req.headers['x-forwarded-for']; // Node joins repeated X-Forwarded-For lines with ", "
  const given = Array.isArray(raw) ? raw.join(', ') : raw;
  const peer = req.socket.remoteAddress;
  if (!peer) return given ?? null;
  return given ? `${given}, ${peer}` : peer;
}

export async function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Promise<Request> {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() !== 'x-forwarded-for') headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const forwarded = forwardedFor(req);
  if (forwarded) headers.set('x-forwarded-for', forwarded);
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
  // An event stream's headers go out now: its first event may be minutes away (an MCP GET stream), and
  // the client waits for the headers to know the stream is open.
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) res.flushHeaders();
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

function writeFailure(err: unknown, res: ServerResponse) {
  const e = toHttpError(err);
  logUnexpected('request', e);
  if (res.headersSent) return void res.end();
  res.writeHead(e.status, { 'content-type': 'application/json', ...e.headers });
  res.end(JSON.stringify(errorBody(e)));
}

/** The body of a Node request, or null as soon as it exceeds `limit` bytes. */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        // The rest is read and dropped (no listener left), so the connection can serve its next request.
        req.off('data', onData);
        return resolve(null);
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    // The client went away mid-body: nobody reads the answer, but the request must not hang.
    req.once('close', () => req.complete || reject(new TransportError('BAD_REQUEST', 'Request body incomplete')));
    req.once('error', reject);
  });
}

/**
 * After a 413 Node reads the rest of the refused body and drops it, so a kept-alive connection serves its
 * next request (as nginx does). A body declared larger than this is not worth reading: the connection closes.
 */
const DISCARD_BODY_BYTES = 32 * 1024 * 1024;

function writeAnswer(answer: RestAnswer, req: IncomingMessage, res: ServerResponse) {
  const tooLargeToDrop = answer.status === 413 && Number(req.headers['content-length'] ?? 0) > DISCARD_BODY_BYTES;
  res.writeHead(answer.status, tooLargeToDrop ? { ...answer.headers, connection: 'close' } : answer.headers);
  res.end(answer.body ?? undefined);
}

/** Serves one REST request: Node's request straight into the dispatcher, the answer written once. */
export function serveRest(req: IncomingMessage, res: ServerResponse) {
  const headers = {
    get(name: string): string | null {
      if (name === 'x-forwarded-for') return forwardedFor(req);
      const value = req.headers[name];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
  dispatchRest({ method: req.method ?? 'GET', url: req.url ?? '/', headers, readBody: (limit) => readNodeBody(req, limit) }).then(
    (answer) => writeAnswer(answer, req, res),
    (err) => writeFailure(err, res),
  );
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
    writeFailure(err, res);
  }
}
