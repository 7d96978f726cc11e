/**
 * Core's MCP endpoint, /mcp (Streamable HTTP, stateless: a fresh server per POST, JSON answers). Callers:
 * the Hub's /mcp proxy with its assertion for a person, or automation with a Core machine token (audited
 * like every machine-token request). Refusals are answered by the one error mapper (api/errors.ts), in the
 * shape of every error: 401 for a credential that is not valid (the Hub shows its client a 502), 403 for a
 * person Core does not know (passed through by the Hub with its message), 503 while the database is down
 * (also when a tool meets the outage: the call fails as a whole rather than answering a tool error).
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { bodyLimit } from 'hono/body-limit';
import { resolveCredential } from '../../../auth/resolve';
import type { CoreContext } from '../../../context';
import { ServiceError } from '../../../domain/errors';
import { buildMcpServer } from '../../../mcp/tools';
import { TransportError } from '../../errors';
import type { Router } from '../../hono';

const MCP_BODY_LIMIT = 1024 * 1024;

export default function mcpEndpoint(app: Router, core: CoreContext) {
  app.use(
    '/mcp',
    bodyLimit({
      maxSize: MCP_BODY_LIMIT,
      onError: () => {
        throw new TransportError('PAYLOAD_TOO_LARGE', 'request body too large (limit 1 MiB)');
      },
    }),
  );
  app.on(['GET', 'POST', 'DELETE'], '/mcp', async (c) => {
    let principal;
    try {
      principal = await resolveCredential(core, c.req.header('authorization'), { hubAssertion: true });
    } catch (err) {
      if (err instanceof ServiceError && err.subject) c.set('auditTokenId', err.subject);
      throw err;
    }
    if (!principal) {
      throw new ServiceError(
        'unauthenticated',
        'Core /mcp needs a credential: the Hub’s assertion or a Core machine token (Authorization: Bearer …)',
      );
    }
    c.set('principal', principal);
    if (principal.kind === 'machine_token') c.set('auditTokenId', principal.tokenId);
    if (c.req.method !== 'POST') {
      c.header('Allow', 'POST');
      throw new TransportError(
        'METHOD_NOT_SUPPORTED',
        'this MCP server is stateless: POST JSON-RPC messages (no SSE stream, no sessions)',
      );
    }
    let failure: { error: unknown } | undefined;
    const server = buildMcpServer(core, principal, { onServerFailure: (error) => (failure ??= { error }) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(c.req.raw);
      // A tool met a failure of Core itself (the database is down): the request fails with the mapper's answer.
      if (failure) throw failure.error;
      return response;
    } finally {
      void server.close().catch(() => {});
    }
  });
}
