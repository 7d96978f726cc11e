/**
 * Core's MCP endpoint, /mcp (Streamable HTTP, stateless: a fresh server per POST, JSON answers). Callers:
 * the Hub's /mcp proxy with its assertion for a person, or automation with a Core machine token (audited
 * like every machine-token request). Refusals are JSON-RPC errors: 401 for a credential that is not
 * valid (the Hub shows its client a 502), 403 for a person Core does not know (passed through by the Hub
 * with its message).
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { resolveCredential } from '../../../auth/resolve';
import type { CoreContext } from '../../../context';
import { CoreError } from '../../../domain/errors';
import { buildMcpServer } from '../../../mcp/tools';
import type { AppEnv, Router } from '../../hono';

const RPC_UNAUTHORIZED = -32001;
const RPC_FORBIDDEN = -32003;

function rpcError(c: Context<AppEnv>, status: 400 | 401 | 403 | 405 | 413 | 429 | 500 | 503, code: number, message: string) {
  if (status === 401) c.header('WWW-Authenticate', 'Bearer realm="core"');
  return c.json({ jsonrpc: '2.0', id: null, error: { code, message } }, status);
}

export default function mcpEndpoint(app: Router, core: CoreContext) {
  app.use('/mcp', bodyLimit({ maxSize: 1024 * 1024, onError: (c) => rpcError(c as Context<AppEnv>, 413, -32600, 'request body too large (limit 1 MiB)') }));
  app.on(['GET', 'POST', 'DELETE'], '/mcp', async (c) => {
    let principal;
    try {
      principal = await resolveCredential(core, c.req.header('authorization'), { hubAssertion: true });
    } catch (err) {
      if (!(err instanceof CoreError)) throw err;
      if (err.details.machineTokenId) c.set('auditTokenId', err.details.machineTokenId);
      if (err.code === 'forbidden') return rpcError(c, 403, RPC_FORBIDDEN, err.message);
      if (err.code === 'unauthorized') return rpcError(c, 401, RPC_UNAUTHORIZED, err.message);
      throw err;
    }
    if (!principal) return rpcError(c, 401, RPC_UNAUTHORIZED, 'Core /mcp needs a credential: the Hub’s assertion or a Core machine token (Authorization: Bearer …)');
    c.set('principal', principal);
    if (principal.kind === 'machine_token') c.set('auditTokenId', principal.tokenId);
    if (c.req.method !== 'POST') {
      c.header('Allow', 'POST');
      return rpcError(c, 405, -32000, 'this MCP server is stateless: POST JSON-RPC messages (no SSE stream, no sessions)');
    }
    const server = buildMcpServer(core, principal);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close().catch(() => {});
    }
  });
}
