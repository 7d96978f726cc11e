/** The POST operations on one deployment (start, stop, restart, apply-update): one shape, one file each. */
import { createRoute } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import type { Actor } from '../../../domain/activity';
import type { Deployment } from '../../../domain/deployments';
import { actorLabel } from '../../../domain/principal';
import type { Db } from '../../../db/client';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema, json } from '../../schemas';
import { DeploymentSchema } from './schemas';

/** Each operation's operationId (verb + noun) and summary in Core's OpenAPI document. */
const OPERATIONS = {
  start: { operationId: 'startDeployment', summary: 'Start a deployment' },
  stop: { operationId: 'stopDeployment', summary: 'Stop a deployment' },
  restart: { operationId: 'restartDeployment', summary: 'Restart a deployment' },
  'apply-update': { operationId: 'applyDeploymentUpdate', summary: 'Apply the template update to a deployment' },
};

export function operationRoute(
  name: keyof typeof OPERATIONS,
  description: string,
  run: (db: Db, id: string, actor: Actor) => Promise<Deployment>,
) {
  const route = createRoute({
    method: 'post',
    path: `/api/v1/deployments/{id}/${name}`,
    tags: ['deployments'],
    ...OPERATIONS[name],
    security: BEARER,
    description,
    middleware: [requireAdmin()] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(DeploymentSchema, 'The deployment after the operation'),
      ...errors(401, 403, 404, 409, 503),
    },
  });
  return (app: Router, core: CoreContext) =>
    app.openapi(route, async (c) => {
      const deployment = await run(core.db, c.req.valid('param').id, actor(c));
      core.log.info(
        { actor: actorLabel(caller(c)), deployment: deployment.name, operation: name },
        'deployment operation',
      );
      return c.json(deployment, 200);
    });
}
