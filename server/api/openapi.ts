/**
 * The OpenAPI 3.1 document of /api/v1, generated from the router once per process. Every operation's
 * operationId (verb + noun), summary and tag are in its procedure's meta; tests/repo/openapi-lint.test.ts lints the
 * document (redocly.yaml).
 */
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { config } from '../config';
import { appRouter } from './root';
import type { HubMeta } from './trpc';

type Doc = ReturnType<typeof generateOpenApiDocument>;
type Operation = {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown; description?: string }>;
  requestBody?: unknown;
  security?: Record<string, string[]>[];
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
};

const LICENSE = { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' };

let cached: Doc | undefined;

export function openApiDocument(): Doc {
  cached ??= withOptionalCredentials(
    withErrorShape(
      withDeleteBodies(
        generateOpenApiDocument(appRouter, {
          title: 'Hub API',
          description:
            'Catalog, account, admin and instance support API of the Hub. Credentials: `Authorization: Bearer ' +
            '<token>` with an instance key (svh_…) or a Hub JWT. Personal access tokens (svp_…) are accepted only ' +
            'at /mcp. ' +
            ERRORS_DESCRIPTION,
          version: '1.0.0',
          license: LICENSE,
          baseUrl: `${config.hubUrl}/api/v1`,
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'Instance key (svh_…) or Hub JWT' },
          },
        }),
      ),
    ),
  );
  return cached;
}

const ERRORS_DESCRIPTION =
  'Every answer carries X-Request-Id (the caller’s own when it is 8-128 of A-Z a-z 0-9 . _ : -). Every error is ' +
  '{"code", "message", "request_id", "reason"?, "issues"?} (the Error schema) with tRPC’s code names (BAD_REQUEST, ' +
  'UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, PAYLOAD_TOO_LARGE, TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE, ...), the same ' +
  'shape as Core’s; 503 SERVICE_UNAVAILABLE and 429 TOO_MANY_REQUESTS carry Retry-After.';

const REQUEST_ID = {
  type: 'string',
  description: 'The id of this request, also in the X-Request-Id header of every answer',
};
const REASON = {
  type: 'string',
  description: 'A machine-readable detail of some refusals (e.g. why an instance key is refused)',
};

const operations = (doc: Doc) =>
  Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item as Record<string, Operation>));

/**
 * The error shape of both services (docs/errors-and-packages.md): every documented error is the one Error
 * schema, with request_id (trpc-to-openapi's own error.* schemas, one per code and without it, are replaced).
 */
function withErrorShape(doc: Doc): Doc {
  const schemas = ((doc.components ??= {}).schemas ??= {});
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  for (const op of operations(doc)) {
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      if (Number(status) < 400) continue;
      for (const media of Object.values(response.content ?? {})) media.schema = { $ref: '#/components/schemas/Error' };
    }
  }
  schemas.Error = {
    type: 'object',
    description: 'The error shape of the Hub and Core',
    properties: {
      code: { type: 'string', description: 'tRPC’s code names', example: 'NOT_FOUND' },
      message: { type: 'string', description: 'What went wrong and, where it helps, what to do' },
      request_id: REQUEST_ID,
      reason: REASON,
      issues: {
        type: 'array',
        description: 'Validation failures (400): each offending field',
        items: { type: 'object' },
      },
    },
    required: ['code', 'message', 'request_id'],
    example: { code: 'NOT_FOUND', message: 'template not found', request_id: '8f14e45f-ceea-467f-a0e6-7a1f2c5d9b3e' },
  } as (typeof schemas)[string];
  return doc;
}

/**
 * A publicProcedure (meta credentialOptional) answers with or without a credential: its security is
 * `[{}, {bearer: []}]` ("none, or a bearer token"), not trpc-to-openapi's bearer-only.
 */
function withOptionalCredentials(doc: Doc): Doc {
  for (const procedure of Object.values(appRouter._def.procedures)) {
    const meta = (procedure as unknown as { _def: { meta?: HubMeta } })._def.meta;
    if (!meta?.credentialOptional || !meta.openapi) continue;
    const op = (doc.paths?.[meta.openapi.path] as Record<string, Operation> | undefined)?.[
      meta.openapi.method.toLowerCase()
    ];
    if (op) op.security = [{}, ...(op.security ?? [])];
  }
  return doc;
}

/**
 * trpc-to-openapi maps DELETE input to query parameters only; the REST adapter also accepts a JSON body
 * (the spec's DELETEs carry the id in the body), so the document says so.
 */
function withDeleteBodies(doc: Doc): Doc {
  for (const item of Object.values(doc.paths ?? {})) {
    const op = (item as { delete?: Operation }).delete;
    const params = op?.parameters?.filter((p) => p.in === 'query') ?? [];
    if (!op || params.length === 0) continue;
    op.requestBody = {
      required: false,
      description: 'The same fields as the query parameters, as JSON (either form is accepted).',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: Object.fromEntries(
              params.map((p) => [p.name, { ...(p.schema as object), description: p.description }]),
            ),
            required: params.filter((p) => p.required).map((p) => p.name),
          },
        },
      },
    };
  }
  return doc;
}
