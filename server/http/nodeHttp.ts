/**
 * Node http helpers for the Hub's own handlers in the production server (no Fetch objects on the way):
 *  - REST: Node's request read directly into the dispatcher (server/api/rest.ts), its answer written once;
 *  - the pieces /mcp (server/http/mcp/proxy.ts) shares with it: the caller's headers as the handlers read them,
 *    a bounded body read, and error answers through the one mapper.
 * A failure of a handler is answered by the error model (server/api/errors.ts): 500 without details.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { forwardedChain } from '@shared/ops';
import { errorBody, logUnexpected, toHttpError, TransportError, type HttpError } from '../api/errors';
import { dispatchRest, type RestAnswer, type RestRequest } from '../api/rest';

/**
 * X-Forwarded-For as the Hub's handlers read it: the request's own header with the TCP peer's address
 * appended, as a reverse proxy appends it (nginx's $proxy_add_x_forwarded_for). The last entry is thus
 * always the real peer, which a client cannot forge; entries to its left count only when the peer is one of
 * HUB_TRUSTED_PROXIES (server/api/clientAddress.ts). Null only when there is neither a header nor a peer address.
 */
export function forwardedFor(req: IncomingMessage): string | null {
  return forwardedChain(req.headers['x-forwarded-for'], req.socket.remoteAddress);
}

/**
 * Answers any error through the one mapper (server/api/errors.ts): its status, headers and body, plus
 * `extra(e)` headers (e.g. a WWW-Authenticate challenge). A failure after the answer started ends it.
 */
export function writeFailure(
  err: unknown,
  res: ServerResponse,
  where = 'request',
  extra: (e: HttpError) => Record<string, string> = () => ({}),
) {
  const e = toHttpError(err);
  logUnexpected(where, e);
  if (res.headersSent) return void res.end();
  const headers = { 'content-type': 'application/json', 'cache-control': 'no-store', ...e.headers, ...extra(e) };
  res.writeHead(e.status, headers);
  res.end(JSON.stringify(errorBody(e)));
}

/** A Node request's headers as the Hub's handlers read them (X-Forwarded-For with the peer appended). */
class NodeHeaders {
  constructor(private readonly req: IncomingMessage) {}

  get(name: string): string | null {
    if (name === 'x-forwarded-for') return forwardedFor(this.req);
    const value = this.req.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/** A Node request's headers as the Hub's handlers read them (X-Forwarded-For with the peer appended). */
export function nodeHeaders(req: IncomingMessage): { get(name: string): string | null } {
  return new NodeHeaders(req);
}

/** A Node request as the REST dispatcher reads it: one object per request, no closure. */
class NodeRestRequest implements RestRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeHeaders;

  constructor(private readonly req: IncomingMessage) {
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
    this.headers = new NodeHeaders(req);
  }

  readBody(limit: number): Promise<Uint8Array | null> {
    return readNodeBody(this.req, limit);
  }
}

/** The body of a Node request, or null as soon as it exceeds `limit` bytes. */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
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

/** The body bytes of the REST answer on a response (its Content-Length is not kept as a header: see writeAnswer). */
export const ANSWER_BYTES = Symbol('answer bytes');

/**
 * The edge's own headers (request id, security headers, as flat name/value pairs) and the answer's, in one flat
 * array: Node's writeHead then keeps no header object (no setHeader per header), which a 304 poll paid for.
 */
function writeAnswer(answer: RestAnswer, req: IncomingMessage, res: ServerResponse, headers: string[]) {
  const tooLargeToDrop = answer.status === 413 && Number(req.headers['content-length'] ?? 0) > DISCARD_BODY_BYTES;
  for (const name in answer.headers) headers.push(name, answer.headers[name]!);
  if (tooLargeToDrop) headers.push('connection', 'close');
  (res as ServerResponse & { [ANSWER_BYTES]?: number })[ANSWER_BYTES] = Number(answer.headers['content-length'] ?? 0);
  res.writeHead(answer.status, headers);
  res.end(answer.body ?? undefined);
}

/**
 * Serves one REST request: Node's request straight into the dispatcher, the answer written once, with the edge's
 * `fixed` headers (flat name/value pairs, this request's own array: the answer's are appended to it) in the same
 * writeHead.
 */
export function serveRest(req: IncomingMessage, res: ServerResponse, fixed: string[] = []) {
  const answer = dispatchRest(new NodeRestRequest(req));
  // A cached answer comes back synchronously (rest.ts): written at once, no promise in between.
  if (!(answer instanceof Promise)) return writeAnswer(answer, req, res, fixed);
  answer.then(
    (a) => writeAnswer(a, req, res, fixed),
    (err) => {
      for (let i = 0; i < fixed.length; i += 2) res.setHeader(fixed[i]!, fixed[i + 1]!);
      writeFailure(err, res);
    },
  );
}
