/** Deployments (desired state): both roles read; admins create, change and delete. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CoreContext } from '../../context';
import { createDeployment, deleteDeployment, getDeployment, listDeployments, updateDeployment } from '../../domain/deployments';
import { actorLabel } from '../../domain/principal';
import { SECRET_NAME } from '../../domain/secrets';
import { caller, requireAdmin, type Router } from '../hono';
import { BEARER, errors, IdParamSchema, json, jsonBody, PageQuerySchema, PaginationSchema } from '../schemas';

const DeploymentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    template_slug: z.string(),
    template_id: z.string(),
    template_version: z.string(),
    env: z.record(z.string(), z.string()),
    secret_refs: z.array(z.string()),
    status: z.enum(['ok', 'template_missing']).openapi({ description: 'template_missing: the template has left this instance’s catalog' }),
    created_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Deployment');

const fields = {
  name: z.string().min(1).max(63),
  template_slug: z.string().min(1).max(200),
  env: z.record(z.string().max(256), z.string().max(65_536, 'must be at most 65,536 characters')).refine((e) => Object.keys(e).length <= 200, 'at most 200 variables'),
  secret_refs: z.array(z.string().regex(SECRET_NAME, 'must be a secret name (A–Z, a–z, 0–9, _ . -)')).max(100),
};
const CreateSchema = z.strictObject({ ...fields, env: fields.env.default({}), secret_refs: fields.secret_refs.default([]) }).openapi('CreateDeployment');
const UpdateSchema = z.strictObject({ name: fields.name.optional(), template_slug: fields.template_slug.optional(), env: fields.env.optional(), secret_refs: fields.secret_refs.optional() }).openapi('UpdateDeployment');

const list = createRoute({
  method: 'get',
  path: '/api/v1/deployments',
  tags: ['deployments'],
  security: BEARER,
  request: { query: PageQuerySchema },
  responses: { 200: json(z.object({ deployments: z.array(DeploymentSchema), pagination: PaginationSchema }), 'Deployments'), ...errors(400, 401) },
});
const get = createRoute({
  method: 'get',
  path: '/api/v1/deployments/{id}',
  tags: ['deployments'],
  security: BEARER,
  request: { params: IdParamSchema },
  responses: { 200: json(DeploymentSchema, 'One deployment'), ...errors(401, 404) },
});
const create = createRoute({
  method: 'post',
  path: '/api/v1/deployments',
  tags: ['deployments'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { body: jsonBody(CreateSchema) },
  responses: { 201: json(DeploymentSchema, 'Created (validated against the synced template)'), ...errors(400, 401, 403, 409) },
});
const update = createRoute({
  method: 'put',
  path: '/api/v1/deployments/{id}',
  tags: ['deployments'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema, body: jsonBody(UpdateSchema) },
  responses: { 200: json(DeploymentSchema, 'Updated; the result is validated against the template as it is now'), ...errors(400, 401, 403, 404, 409) },
});
const remove = createRoute({
  method: 'delete',
  path: '/api/v1/deployments/{id}',
  tags: ['deployments'],
  security: BEARER,
  middleware: [requireAdmin()] as const,
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Deleted' }, ...errors(401, 403, 404) },
});

export function registerDeploymentRoutes(app: Router, core: CoreContext) {
  app.openapi(list, async (c) => c.json(await listDeployments(core.db, c.req.valid('query')), 200));
  app.openapi(get, async (c) => c.json(await getDeployment(core.db, c.req.valid('param').id), 200));
  app.openapi(create, async (c) => {
    const deployment = await createDeployment(core.db, c.req.valid('json'), actorLabel(caller(c)));
    core.log.info('deployment created', { actor: actorLabel(caller(c)), deployment: deployment.name, template: deployment.template_slug });
    return c.json(deployment, 201);
  });
  app.openapi(update, async (c) => {
    const deployment = await updateDeployment(core.db, c.req.valid('param').id, c.req.valid('json'));
    core.log.info('deployment updated', { actor: actorLabel(caller(c)), deployment: deployment.name });
    return c.json(deployment, 200);
  });
  app.openapi(remove, async (c) => {
    await deleteDeployment(core.db, c.req.valid('param').id);
    core.log.info('deployment deleted', { actor: actorLabel(caller(c)), deployment_id: c.req.valid('param').id });
    return c.body(null, 204);
  });
}
