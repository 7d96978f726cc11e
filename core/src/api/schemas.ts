/** Request and response shapes shared by several routes; each route file holds its own. */
import { z } from '@hono/zod-openapi';
import { legacyRoleMessage, ROLES } from '../domain/roles';
import { ERROR_CODES } from './errors';

/** The one error shape of Core and the Hub (docs/errors-and-packages.md). */
export const ErrorSchema = z
  .object({
    code: z
      .enum(ERROR_CODES)
      .openapi({ example: 'BAD_REQUEST', description: 'tRPC\u2019s code names, as the Hub answers' }),
    message: z.string().openapi({ description: 'What went wrong and, where it helps, what to do' }),
    request_id: z
      .string()
      .openapi({ description: 'The id of this request, also in the X-Request-Id header of every answer' }),
    reason: z.string().optional().openapi({
      description: 'A machine-readable detail of some refusals (the Hub’s fault of a sync: key_refused, …)',
    }),
    issues: z
      .array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() }))
      .optional()
      .openapi({ description: 'Validation failures (400): each offending field' }),
  })
  .openapi('Error');

export const RoleSchema = z
  .enum(ROLES, { error: (issue) => legacyRoleMessage(issue.input) })
  .openapi('Role', { description: 'admin or readonly (operator and viewer no longer exist)' });

export const PaginationSchema = z
  .object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), totalPages: z.number().int() })
  .openapi('Pagination');

export const PageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
  limit: z.coerce.number().int().min(1).max(100).default(50).openapi({ example: 50 }),
});

export const IdParamSchema = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad input (the message names the field)',
  401: 'Missing or invalid credential',
  403: 'The caller\u2019s role does not allow this',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body too large',
  429: 'Too many attempts',
  503: 'A dependency is unavailable',
};

/** Error responses for the OpenAPI document. */
export function errors(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: STATUS_TEXT[s] ?? 'Error', content: { 'application/json': { schema: ErrorSchema } } },
    ]),
  );
}

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const BEARER = [{ bearer: [] }];
