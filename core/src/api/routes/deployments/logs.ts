/**
 * GET /api/v1/deployments/{id}/logs?tail=N&follow=true (ADMIN ONLY): the container's output as text, streamed
 * while following. Admin only because a process can print its own secrets.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { Readable } from 'node:stream';
import type { TypedResponse } from 'hono';
import type { CoreContext } from '../../../context';
import { deploymentLogs } from '../../../domain/deployments';
import { requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema } from '../../schemas';

const QuerySchema = z.object({
  tail: z.coerce.number().int().min(0).max(10_000).default(200).openapi({ description: 'Last N lines (default 200)' }),
  follow: z
    .enum(['true', 'false'], { error: 'follow must be true or false' })
    .default('false')
    .openapi({ description: 'Keep the answer open and stream new lines until the container stops' }),
});

const route = createRoute({
  method: 'get',
  path: '/api/v1/deployments/{id}/logs',
  tags: ['deployments'],
  operationId: 'getDeploymentLogs',
  summary: 'Read the logs of a deployment',
  security: BEARER,
  description:
    'ADMIN ONLY: a process can print its own secrets (a password it was given, a connection string), so readonly callers ' +
    'never see logs. stdout and stderr merged, as text; with follow=true the answer streams until the container stops ' +
    'or the client goes. 503 `unavailable` naming the engine when it is unreachable.',
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema, query: QuerySchema },
  responses: {
    200: { description: 'The output', content: { 'text/plain': { schema: z.string() } } },
    ...errors(400, 401, 403, 404, 503),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const { tail, follow } = c.req.valid('query');
    const output = await deploymentLogs(core.db, c.req.valid('param').id, { tail, follow: follow === 'true' });
    // The client going away ends the engine's stream too.
    c.req.raw.signal.addEventListener('abort', () => output.destroy(), { once: true });
    const body = Readable.toWeb(output) as ReadableStream<Uint8Array>;
    // A stream where the document says text: the typed answer is the text it becomes.
    return c.body(body, 200, {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    }) as unknown as TypedResponse<string, 200, 'text'>;
  });
