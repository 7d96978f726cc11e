/** The OpenAPI 3.1 document of /api/v1, generated from the router once per process. */
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { config } from '../config';
import { appRouter } from './root';

type Doc = ReturnType<typeof generateOpenApiDocument>;
type Operation = {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown; description?: string }>;
  requestBody?: unknown;
};

let cached: Doc | undefined;

export function openApiDocument(): Doc {
  cached ??= withErrorShape(
    withDeleteBodies(
      generateOpenApiDocument(appRouter, {
        title: 'Hub API',
        description:
          'Catalog, account, admin and instance support API of the Hub. Credentials: `Authorization: Bearer <token>` with an instance key (svh_…) or a Hub JWT. Personal access tokens (svp_…) are accepted only at /mcp. ' +
          ERRORS_DESCRIPTION,
        version: '1.0.0',
        baseUrl: `${config.hubUrl}/api/v1`,
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Instance key (svh_…) or Hub JWT' } },
      }),
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

/** The error shape of both services (docs/errors-and-packages.md): the Error schema, and request_id in each error.* schema. */
function withErrorShape(doc: Doc): Doc {
  const schemas = ((doc.components ??= {}).schemas ??= {});
  for (const [name, schema] of Object.entries(schemas)) {
    if (!name.startsWith('error.')) continue;
    const s = schema as { properties?: Record<string, unknown>; required?: string[] };
    s.properties = { ...s.properties, request_id: REQUEST_ID, reason: REASON };
    s.required = [...(s.required ?? []), 'request_id'];
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
  } as (typeof schemas)[string];
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
