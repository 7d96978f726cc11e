/** POST /api/v1/deployments (admin): record a deployment, validated against the synced template. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../../context';
import { createDeployment } from '../../../domain/deployments';
import { actorLabel } from '../../../domain/principal';
import { actor, caller, requireAdmin, type Router } from '../../hono';
import { BEARER, errors, json, jsonBody } from '../../schemas';
import { deploymentFields, DeploymentSchema } from './schemas';

const CreateSchema = z
  .strictObject({
    ...deploymentFields,
    env: deploymentFields.env.default({}),
    secret_refs: deploymentFields.secret_refs.default([]),
    desired_state: deploymentFields.desired_state.default('running'),
    host_ports: deploymentFields.host_ports.default([]),
  })
  .openapi('CreateDeployment');

const route = createRoute({
  method: 'post',
  path: '/api/v1/deployments',
  tags: ['deployments'],
  operationId: 'createDeployment',
  summary: 'Create a deployment',
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(CreateSchema) },
  responses: {
    201: json(
      DeploymentSchema,
      'Created (validated against the synced template); with an engine, the reconciler creates its container at once',
    ),
    ...errors(400, 401, 403, 409),
  },
});

export default (app: Router, core: CoreContext) =>
  app.openapi(route, async (c) => {
    const deployment = await createDeployment(core.db, c.req.valid('json'), actor(c));
    core.log.info(
      { actor: actorLabel(caller(c)), deployment: deployment.name, template: deployment.template_slug },
      'deployment created',
    );
    return c.json(deployment, 201);
  });
