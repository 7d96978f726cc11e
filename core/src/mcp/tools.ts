/**
 * Core's MCP tools. Each runs as the caller (a person through the Hub, or a machine token) under that
 * caller's Core role: a tool that needs admin answers a readonly caller with an isError result naming
 * the role. Every call is recorded (who, tool, outcome) — never its arguments or result.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toWireError } from '@shared/ops';
import { z } from 'zod';
import type { CoreContext } from '../context';
import { getTemplate, listCatalog } from '../domain/catalog';
import {
  createDeployment,
  getDeployment,
  isBinding,
  listDeployments,
  restartDeployment,
  startDeployment,
  stopDeployment,
  type Deployment,
  type EnvValue,
} from '../domain/deployments';
import { actorOf } from '../domain/activity';
import { ServiceError } from '../domain/errors';
import { actorLabel, type Principal } from '../domain/principal';
import type { Role } from '../domain/roles';
import { listSecrets, putSecret, readSecret, SECRET_NAME } from '../domain/secrets';
import { findUnstorable } from '../domain/text';
import { recordToolCall, type Outcome } from './calls';

const text = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

/** Compact search results; get_template gives the whole template. */
const summary = (t: Record<string, unknown>) => ({
  slug: t.slug,
  name: t.name,
  description: t.description,
  version: t.version,
  category: t.category_slug,
  tags: t.tags,
  image: `${String(t.image_name)}:${String(t.image_tag)}`,
});

/**
 * What create_deployment recorded, for the assistant that asked: the literal values under env, each variable bound
 * to a secret under secret_bindings (variable → secret name), the secrets mounted as files under secret_files. The
 * REST shape's `secret_refs: []` beside a binding in env read as if the binding had been lost. (deployment_status
 * and list_deployments answer the REST shape, where env shows a binding as {"secret": "<name>"}.)
 */
function deploymentView(d: Deployment) {
  const { env, secret_refs, ...rest } = d;
  const literals: Record<string, string> = {};
  const bindings: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (isBinding(value)) bindings[name] = value.secret;
    else literals[name] = value;
  }
  const { id, name, template_slug, ...others } = rest;
  return { id, name, template_slug, env: literals, secret_bindings: bindings, secret_files: secret_refs, ...others };
}

/** The template without an empty `env` (fixed variables), which read as "no variables" beside its env_schema. */
function templateView(t: Record<string, unknown>) {
  if (!Array.isArray(t.env) || t.env.length > 0) return t;
  const { env: _empty, ...rest } = t;
  return rest;
}

export interface McpServerOptions {
  /** A tool failed for a reason of Core's own (5xx: the database is down, a bug): the endpoint answers it. */
  onServerFailure?: (error: unknown) => void;
}

export function buildMcpServer(core: CoreContext, caller: Principal, opts: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'core', version: core.config.version });

  const record = (tool: string, outcome: Outcome, message: string | null) =>
    recordToolCall(core.db, caller, tool, outcome, message).catch((err: unknown) =>
      core.log.error({ tool, error: String(err) }, 'mcp tool call not recorded'),
    );

  /** Wraps a tool: the role check, the record, and domain errors as isError results. */
  function tool<A>(name: string, needs: Role, run: (args: A) => Promise<unknown>) {
    return async (args: A): Promise<CallToolResult> => {
      if (needs === 'admin' && caller.role !== 'admin') {
        const message = `${name} needs the admin role; ${actorLabel(caller)} has the ${caller.role} role on this Core instance`;
        await record(name, 'refused', message);
        return text(message, true);
      }
      const problem = findUnstorable(args);
      if (problem) {
        await record(name, 'error', problem);
        return text(problem, true);
      }
      try {
        const result = await run(args);
        await record(name, 'ok', null);
        return text(result);
      } catch (err) {
        // The one error model words every failure; the caller's mistakes (4xx) are the tool's error result.
        const e = toWireError(err);
        // A dependency the domain names (the container engine is down) is this tool's answer, not Core failing.
        const dependency = err instanceof ServiceError && err.code === 'unavailable';
        if (e.status >= 500 && !dependency) {
          opts.onServerFailure?.(err);
          await record(name, 'error', e.message);
          return text(e.message, true);
        }
        await record(name, e.code === 'FORBIDDEN' ? 'refused' : 'error', e.message);
        return text(e.message, true);
      }
    };
  }

  server.registerTool(
    'search_templates',
    {
      description: "Search this Core instance's catalog (synced from the Hub) by text and category slug.",
      inputSchema: {
        query: z.string().max(200).optional().describe('Matches name or description, case-insensitive'),
        category: z.string().max(200).optional().describe('Category slug'),
        limit: z.number().int().min(1).max(100).optional().describe('At most this many (default 20)'),
      },
      annotations: { readOnlyHint: true },
    },
    tool(
      'search_templates',
      'readonly',
      async ({ query, category, limit }: { query?: string; category?: string; limit?: number }) => {
        const found = await listCatalog(core.db, { search: query, category, page: 1, limit: limit ?? 20 });
        return { templates: found.templates.map(summary), total: found.pagination.total };
      },
    ),
  );

  server.registerTool(
    'get_template',
    {
      description:
        'One catalog template with everything needed to deploy it: env_schema (the variables a deployment sets; a ' +
        'required credential is bound to a Core secret), env (fixed values, when the template sets any), ports, ' +
        'volumes, resources.',
      inputSchema: { slug: z.string().max(200) },
      annotations: { readOnlyHint: true },
    },
    tool('get_template', 'readonly', async ({ slug }: { slug: string }) =>
      templateView(await getTemplate(core.db, slug)),
    ),
  );

  server.registerTool(
    'list_deployments',
    {
      description:
        'Deployments on this Core instance with their desired state (running/stopped) and what the engine reports ' +
        '(observed: state, reason, ports, restarts): {deployments (the first 100 by name), total}; ' +
        'secret bindings show the secret’s name only.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool('list_deployments', 'readonly', async () => {
      const found = await listDeployments(core.db, { page: 1, limit: 100 });
      return { deployments: found.deployments, total: found.pagination.total };
    }),
  );

  server.registerTool(
    'create_deployment',
    {
      description:
        'Record a deployment of a catalog template (admin). env must satisfy the template’s env_schema; a value is a literal or ' +
        '{"secret": "<name>"} binding an existing Core secret (credential-named variables such as ADMIN_PASSWORD take only ' +
        'bindings, and so does a value carrying a credential: a URL with user:password@, a password=/token=/api_key= ' +
        'parameter, a private key). secret_refs name existing Core secrets mounted as files. Create each secret first ' +
        'with set_secret (list_secrets names those that exist). The answer shows env (literals), secret_bindings ' +
        '(variable → secret) and secret_files.',
      inputSchema: {
        name: z.string().max(63).describe('Lower-case letters, digits and -'),
        template_slug: z.string().max(200),
        env: z
          .record(
            z.string().max(256),
            z.union([z.string().max(65_536), z.strictObject({ secret: z.string().max(128) })]),
          )
          .optional()
          .describe('Variables declared by the template: a literal, or {"secret": "<name>"}'),
        secret_refs: z
          .array(z.string().max(128))
          .max(100)
          .optional()
          .describe('Names of Core secrets mounted as files'),
      },
    },
    tool(
      'create_deployment',
      'admin',
      async (args: { name: string; template_slug: string; env?: Record<string, EnvValue>; secret_refs?: string[] }) =>
        deploymentView(
          await createDeployment(
            core.db,
            {
              name: args.name,
              template_slug: args.template_slug,
              env: args.env ?? {},
              secret_refs: args.secret_refs ?? [],
            },
            actorOf(caller, 'mcp'),
          ),
        ),
    ),
  );

  const deploymentId = {
    id: z.string().max(64).describe('The deployment’s id (list_deployments gives it)'),
  };

  server.registerTool(
    'deployment_status',
    {
      description:
        'One deployment: desired_state (running/stopped) and observed = {state (pending, pulling, starting, running, ' +
        'restarting, exited, failed, unschedulable, template_missing, unknown), reason, since, ports, restarts, exit_code, ' +
        'image, update_available, needs_restart}.',
      inputSchema: deploymentId,
      annotations: { readOnlyHint: true },
    },
    tool('deployment_status', 'readonly', ({ id }: { id: string }) => getDeployment(core.db, id)),
  );

  // The operations of POST /api/v1/deployments/{id}/start|stop|restart, through the same domain functions.
  const operations = [
    [
      'start_deployment',
      startDeployment,
      'Start a deployment (admin): its desired state becomes running and the engine runs it.',
    ],
    [
      'stop_deployment',
      stopDeployment,
      'Stop a deployment (admin): its container is stopped and kept, with its volumes.',
    ],
    [
      'restart_deployment',
      restartDeployment,
      'Restart a running deployment’s container (admin; a rotated secret is picked up). Needs the container engine.',
    ],
  ] as const;
  for (const [name, run, description] of operations)
    server.registerTool(
      name,
      { description, inputSchema: deploymentId, annotations: { destructiveHint: name !== 'start_deployment' } },
      tool(name, 'admin', ({ id }: { id: string }) => run(core.db, id, actorOf(caller, 'mcp'))),
    );

  server.registerTool(
    'list_secrets',
    {
      description:
        'The secrets on this Core instance, never their values: {secrets: [{name, description, created_at, updated_at}], total}.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool('list_secrets', 'readonly', async () => {
      const { secrets } = await listSecrets(core.db);
      return { secrets, total: secrets.length };
    }),
  );

  server.registerTool(
    'set_secret',
    {
      description:
        'Create or replace a secret (admin). The value is stored sealed and never echoed back: the answer is the ' +
        'secret’s name, description and times. A deployment then binds it (create_deployment env ' +
        '{"VAR": {"secret": "<name>"}}) or mounts it as a file (secret_refs); a running deployment picks a new value ' +
        'up when restarted.',
      inputSchema: {
        name: z.string().max(128).describe('1–128 characters of A–Z, a–z, 0–9, _ . -'),
        value: z.string().max(65_536).describe('The secret value (never returned)'),
        description: z.string().max(1000).optional().describe('What the secret is for'),
      },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    tool('set_secret', 'admin', async (args: { name: string; value: string; description?: string }) => {
      if (!SECRET_NAME.test(args.name))
        throw new ServiceError('invalid', 'name: must be 1–128 characters of A–Z, a–z, 0–9, _ . -');
      return putSecret(
        core.db,
        core.sealer,
        args.name,
        { value: args.value, description: args.description },
        actorOf(caller, 'mcp'),
      );
    }),
  );

  server.registerTool(
    'read_secret',
    {
      description: 'The value of one secret (admin); list_secrets names them.',
      inputSchema: { name: z.string().max(128) },
      annotations: { readOnlyHint: true },
    },
    tool('read_secret', 'admin', ({ name }: { name: string }) => readSecret(core.db, core.sealer, name)),
  );

  // The tool list never changes while a client is connected (the server is stateless: one per POST) and GET /mcp
  // opens no stream to notify on (405): say so instead of the SDK's default listChanged: true.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
