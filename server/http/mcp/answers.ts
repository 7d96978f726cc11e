/**
 * The answers the /mcp proxy gives itself (nothing forwarded): a refused credential in the error model's shape with
 * the challenge MCP clients read, and JSON-RPC errors for a call (the codes below; server/http/mcp/proxy.ts lists
 * when each is given).
 */
import type { ServerResponse } from 'node:http';
import { RateLimitRefusal, rateLimitHeaders } from '../../api/rateLimit';
import type { ServiceError } from '../../domain/errors';
import { writeFailure } from '../nodeHttp';

export const RPC_NOT_REGISTERED = -32010;
export const RPC_UPSTREAM_FAILED = -32011;
export const RPC_UPSTREAM_TIMEOUT = -32012;
export const RPC_LIMIT_EXCEEDED = -32013;

export type RpcId = string | number | null;

function headerSafe(text: string) {
  return text.replace(/…/g, '...').replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
}

/** A refused credential: the error model's answer, with the challenge MCP clients read. */
export function writeRefusal(refusal: ServiceError, res: ServerResponse) {
  if (refusal instanceof RateLimitRefusal) {
    return writeFailure(refusal, res, '/mcp', () => rateLimitHeaders(refusal.status));
  }
  writeFailure(refusal, res, '/mcp', (e) => ({
    'www-authenticate':
      `Bearer realm="hub", error="${e.status === 401 ? 'invalid_token' : 'insufficient_scope'}", ` +
      `error_description="${headerSafe(e.message)}"`,
  }));
}

/** An answer of the proxy itself about the call (not forwarded): a JSON-RPC error for the call's id. */
export function writeRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: RpcId,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return void res.end();
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(body);
}
