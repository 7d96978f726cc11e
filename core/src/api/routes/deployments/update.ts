/** PUT /api/v1/deployments/{id} (admin): partial; the result is validated against the template as it is now. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { updateDeployment } from '../../../domain/deployments';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, IdParamSchema, json, jsonBody } from '../../schemas';
import { deploymentFields, DeploymentSchema } from './schemas';

const UpdateSchema = z
  .strictObject({
    name: deploymentFields.name.optional(),
    template_slug: deploymentFields.template_slug.optional(),
    env: deploymentFields.env.optional(),
    secret_refs: deploymentFields.secret_refs.optional(),
    desired_state: deploymentFields.desired_state.optional(),
    host_ports: deploymentFields.host_ports.optional(),
  })
  .openapi('UpdateDeployment');

const route = createRoute({
  method: 'put',
  path: '/api/v1/deployments/{id}',
  tags: ['deployments'],
  operationId: 'updateDeployment',
  summary: 'Update a deployment',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema, body: jsonBody(UpdateSchema) },
  responses: { 200: json(DeploymentSchema, 'Updated'), ...errors(400, 401, 403, 404, 409) },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const deployment = await updateDeployment(core.db, c.req.valid('param').id, c.req.valid('json'), actor(c));
    core.log.info({ actor: actorLabel(caller(c)), deployment: deployment.name }, 'deployment updated');
    return c.json(deployment, 200);
  });
