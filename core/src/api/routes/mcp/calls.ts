/** GET /api/v1/mcp/calls (both roles): the record of MCP tool calls, newest first. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { listToolCalls } from '../../../mcp/calls';
import type { Router } from '../../hono';
import { BEARER, errors, json, PageQuerySchema, PaginationSchema } from '../../schemas';

const ToolCallSchema = z
  .object({
    id: z.number().int(),
    at: z.string(),
    via: z
      .string()
      .openapi({ description: 'hub (a person through the Hub’s /mcp), machine_token, local, oidc or temporary_admin' }),
    actor: z.string(),
    user_id: z.string().nullable(),
    token_id: z
      .string()
      .nullable()
      .openapi({ description: 'The Hub personal access token id, or the Core machine token id' }),
    tool: z.string(),
    outcome: z.enum(['ok', 'refused', 'error']),
    message: z.string().nullable(),
  })
  .openapi('McpToolCall');

const route = createRoute({
  method: 'get',
  path: '/api/v1/mcp/calls',
  tags: ['mcp'],
  operationId: 'listMcpCalls',
  summary: 'List the MCP tool calls, newest first',
  security: BEARER,
  request: { query: PageQuerySchema },
  responses: {
    200: json(
      z.object({ calls: z.array(ToolCallSchema), pagination: PaginationSchema }),
      'MCP tool calls, newest first',
    ),
    ...errors(400, 401),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => c.json(await listToolCalls(core.db, c.req.valid('query')), 200));
