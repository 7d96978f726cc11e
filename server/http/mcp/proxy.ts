/**
 * The MCP proxy behind /mcp (MCP Streamable HTTP transport), on Node's own request and response (served by the
 * production edge, server/http/edge.ts; no Fetch objects on the way). An AI client sends
 * `Authorization: Bearer svp_…`; the Hub checks the personal access token on every call (resolvePat),
 * then forwards POST, GET (SSE) and DELETE to the MCP URL the token's instance reported, streaming both
 * ways without buffering. The client's token never leaves the Hub: the instance receives
 * `Authorization: Bearer <assertion>`, a 60-second Hub JWT (verifiable with /.well-known/jwks.json) with
 *   iss = HUB_URL, aud = instance (key) id, sub = user id, email, name, org_id, token_id, instance_id, and
 *   destination = the MCP URL it is sent to (exactly the instance's registered mcp_url). An instance accepts it
 *   only when that is its own MCP endpoint, so an assertion sent elsewhere (an mcp_url pointed at another server)
 *   cannot be replayed to the instance (Core: core/src/hub/assertion.ts).
 *
 * Answers of the Hub itself (nothing is forwarded):
 *   401 (WWW-Authenticate: Bearer realm="hub", error="invalid_token") no/garbage/unknown/expired/revoked
 *       token, instance key, JWT, minter no longer a member, instance revoked — body {code, reason, message};
 *   403 (error="insufficient_scope") the organization is suspended;
 *   503 JSON-RPC error -32010: the instance has not registered its MCP URL;
 *   502 JSON-RPC error -32011 (instance unreachable, refused address, or it answered 5xx/3xx/401),
 *   504 JSON-RPC error -32012 (no connection or no response headers in time);
 *   429 JSON-RPC error -32013 + Retry-After: the token already has HUB_MCP_MAX_STREAMS_PER_TOKEN calls and streams
 *       open, or its person HUB_MCP_MAX_STREAMS_PER_USER over all their tokens;
 *   503 SERVICE_UNAVAILABLE + Retry-After (the error model's body, as on REST): the database is unavailable;
 *   405 METHOD_NOT_SUPPORTED + Allow: a method other than GET, POST, DELETE.
 *
 * Limits per personal access token (what a stalled or greedy instance or client can hold on the Hub):
 *   - open calls and streams at once (HUB_MCP_MAX_STREAMS_PER_TOKEN per token, HUB_MCP_MAX_STREAMS_PER_USER per person
 *     over all their tokens, per process): a call counts from the moment it is forwarded until its response has
 *     ended or was cut; over either limit → 429 before anything is forwarded;
 *   - bytes per response (HUB_MCP_MAX_RESPONSE_BYTES): a larger Content-Length → 502 -32013 before relaying;
 *     a streamed response that grows past it is cut (see below);
 *   - idle time (HUB_MCP_IDLE_TIMEOUT_MS): a started response that relays nothing for that long is closed, and its
 *     connection to the instance with it.
 * A response cut for bytes or idleness: an SSE answer to a POST ends with a JSON-RPC error event for the call's id
 * (-32013, so the client's pending call fails with the reason instead of hanging), a GET stream simply ends (the
 * client reconnects), any other body (or the answer to a POST whose id the Hub did not read) is aborted.
 *
 * This file is the entry point (the token, the body, the checks before forwarding); answers.ts the Hub's own
 * answers, limits.ts the open calls per token and person, relay.ts the instance side, outbound.ts where it may go.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseBearer } from '@shared/tokens';
import { config } from '../../config';
import { TransportError } from '../../api/errors';
import { admit } from '../../api/rateLimit';
import { sourceAddress } from '../../api/clientAddress';
import { resolvePat } from '../../auth/credentials';
import { ServiceError } from '../../domain/errors';
import { noteCaller, requestLogger } from '../../log';
import { recordMcpCall } from '../../domain/mcpCalls';
import type { ResolvedPat } from '../../domain/pats';
import { insecureMcpUrl } from '../../domain/support/instances';
import { nodeHeaders, readNodeBody, writeFailure } from '../nodeHttp';
import {
  RPC_LIMIT_EXCEEDED,
  RPC_NOT_REGISTERED,
  RPC_UPSTREAM_FAILED,
  writeRefusal,
  writeRpcError,
  type RpcId,
} from './answers';
import { takeSlot } from './limits';
import { checkLiteralHost } from './outbound';
import { assertionFor, forward, targetOf } from './relay';

/** POST bodies up to this size are read first so that the JSON-RPC method can be recorded; larger ones stream through unread. */
const INSPECT_MAX_BYTES = 64 * 1024;
const MCP_METHODS = new Set(['GET', 'POST', 'DELETE']);

function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  return parseBearer(authorization) ?? 'invalid';
}

/** The JSON-RPC method(s) and id of a body the Hub read, or null when it is not JSON at all. */
function inspectRpc(body: Buffer): { method: string | null; id: RpcId } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const methodOf = (m: unknown) =>
    m && typeof m === 'object' && typeof (m as { method?: unknown }).method === 'string'
      ? (m as { method: string }).method
      : null;
  // A batch: its methods, no id (one call's id cannot answer for all of them).
  if (Array.isArray(parsed)) {
    const methods = parsed.map(methodOf).filter((m): m is string => m !== null);
    return { method: methods.length > 0 ? methods.join(',') : null, id: null };
  }
  const id = parsed && typeof parsed === 'object' ? (parsed as { id?: unknown }).id : undefined;
  return { method: methodOf(parsed), id: typeof id === 'string' || typeof id === 'number' ? id : null };
}

/**
 * The /mcp handler (POST, GET and DELETE) on Node's own request and response. Failures of the Hub itself go
 * through the one error mapper: a database outage is 503 with Retry-After, anything unexpected 500 without details.
 */
export function serveMcp(req: IncomingMessage, res: ServerResponse): void {
  if (!MCP_METHODS.has(req.method ?? '')) {
    const refused = new TransportError('METHOD_NOT_SUPPORTED', 'Use GET, POST or DELETE on /mcp');
    return writeFailure(refused, res, '/mcp', () => ({ allow: 'GET, POST, DELETE' }));
  }
  proxy(req, res).catch((err) => writeFailure(err, res, '/mcp'));
}

async function proxy(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const marks: [string, number][] = [['start', performance.now()]];
  let pat: ResolvedPat;
  try {
    const token = bearerToken(req.headers.authorization);
    const address = sourceAddress(nodeHeaders(req))?.ip ?? 'unknown';
    ({ caller: pat } = await admit(
      address,
      token !== null,
      () => resolvePat(token),
      (p) => `svp:${p.tokenId}`,
    ));
    noteCaller({ kind: 'pat', id: pat.tokenId });
  } catch (err) {
    if (err instanceof ServiceError) return writeRefusal(err, res);
    throw err;
  }
  marks.push(['pat', performance.now()]);

  let body: Buffer | null = null;
  let method: string | null = null;
  let rpcId: RpcId = null;
  if (req.method === 'POST') {
    const length = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(length) && length <= INSPECT_MAX_BYTES) {
      const read = (await readNodeBody(req, INSPECT_MAX_BYTES))!;
      body = Buffer.from(read.buffer, read.byteOffset, read.byteLength);
      const rpc = inspectRpc(body);
      // Not JSON: JSON-RPC's parse error, from the Hub (an instance may well fail on it with a 5xx).
      if (!rpc) return writeRpcError(res, 400, -32700, 'Parse error: the request body is not valid JSON', null);
      ({ method, id: rpcId } = rpc);
    }
  }

  const record = (upstreamStatus: number | null) => void recordMcpCall({ pat, method, upstreamStatus });

  if (!pat.mcpUrl) {
    record(null);
    return writeRpcError(
      res,
      503,
      RPC_NOT_REGISTERED,
      'The instance this token is bound to has not registered its MCP URL with the Hub yet (the instance reports ' +
        'it with PUT /api/v1/instance-info {mcp_url}). Connect the instance to the Hub, or ask its administrator to.',
      rpcId,
    );
  }
  const target = targetOf(pat.mcpUrl);
  if (target.error) {
    record(null);
    return writeRpcError(res, 502, RPC_UPSTREAM_FAILED, target.error, rpcId);
  }
  // A plain-http URL stored before such URLs were refused (or allowed then): nothing is sent in clear.
  if (insecureMcpUrl(target.url)) {
    record(null);
    return writeRpcError(
      res,
      502,
      RPC_UPSTREAM_FAILED,
      "The instance's MCP URL is plain http:// to a host other than loopback; the Hub does not send calls in " +
        'clear. The instance must report an https:// MCP URL (or the Hub operator allow plain http with ' +
        'HUB_ALLOW_INSECURE_MCP_URL=true)',
      rpcId,
    );
  }
  const blocked = checkLiteralHost(target.url.hostname);
  if (blocked) {
    requestLogger().warn({ upstream: blocked.host }, 'MCP upstream refused: private address');
    record(null);
    return writeRpcError(res, 502, RPC_UPSTREAM_FAILED, blocked.message, rpcId);
  }

  const release = takeSlot(pat);
  if (typeof release === 'string') {
    // Not forwarded, not recorded: a client over its limit costs no write.
    const message =
      release === 'token'
        ? `Too many open MCP calls and streams with this token (${config.mcpMaxStreamsPerToken} at once, ` +
          'HUB_MCP_MAX_STREAMS_PER_TOKEN); retry when one has finished'
        : `Too many open MCP calls and streams of this person over all their tokens (${config.mcpMaxStreamsPerUser} at ` +
          'once, HUB_MCP_MAX_STREAMS_PER_USER); retry when one has finished';
    return writeRpcError(res, 429, RPC_LIMIT_EXCEEDED, message, rpcId, { 'retry-after': '1' });
  }
  marks.push(['body', performance.now()]);
  let assertion: string;
  try {
    assertion = await assertionFor(pat, pat.mcpUrl);
  } catch (err) {
    release();
    throw err;
  }
  marks.push(['assertion', performance.now()]);
  if (res.destroyed) return release(); // the client left while the Hub checked its token
  const status = await forward({ req, res, target: target.url, assertion, body, rpcId, release, marks });
  // A client's GET (or DELETE) answered 405 is the protocol's "no stream (or session) here", which a stateless
  // instance such as Core gives every client once per connection: not a call the instance refused.
  if (status === 405 && req.method !== 'POST') return;
  record(status);
}
