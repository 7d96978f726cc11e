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
  cached ??= withDeleteBodies(
    generateOpenApiDocument(appRouter, {
      title: 'Hub API',
      description:
        'Catalog, account, admin and instance support API of the Hub. Credentials: `Authorization: Bearer <token>` with an instance key (svh_…) or a Hub JWT. Personal access tokens (svp_…) are accepted only at /mcp.',
      version: '1.0.0',
      baseUrl: `${config.hubUrl}/api/v1`,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Instance key (svh_…) or Hub JWT' } },
    }),
  );
  return cached;
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
            properties: Object.fromEntries(params.map((p) => [p.name, { ...(p.schema as object), description: p.description }])),
            required: params.filter((p) => p.required).map((p) => p.name),
          },
        },
      },
    };
  }
  return doc;
}
