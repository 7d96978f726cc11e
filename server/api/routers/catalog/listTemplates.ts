import { z } from 'zod';
import { listTemplates } from '../../../domain/catalog/list';
import { catalogScopeOf, readSourceOf } from '../../../domain/principal';
import { recordFullSync } from '../../../domain/usage';
import { publicProcedure } from '../../trpc';
import { TemplateSchema, toTemplate } from '../../schemas/catalog';
import { PaginationSchema, pageInput, pagination, queryBool, queryList, resolvePage } from '../../schemas/query';

export const TemplateFiltersInput = {
  category: z.string().trim().max(100).optional().describe('Category slug'),
  search: z
    .string()
    .trim()
    .max(200)
    .optional()
    .describe('Case-insensitive match on name or description, or a tag equal to it; ranked by relevance'),
  featured: queryBool().optional().describe('When true, only featured templates'),
  tags: queryList().optional().describe('Comma-separated; templates having any of these tags (case-insensitive)'),
};

export const listTemplatesInput = z.object({ ...TemplateFiltersInput, ...pageInput });

export const listTemplatesProcedure = publicProcedure
  .meta({
    responseCache: 'catalog',
    credentialOptional: true,
    openapi: {
      method: 'GET',
      path: '/catalog/templates',
      operationId: 'listTemplates',
      tags: ['catalog'],
      summary: 'List templates visible to the caller',
      description:
        'Instance key, admin JWT or no credential; see the visibility rules. limit defaults to 50 and is clamped to 100.',
    },
  })
  .input(listTemplatesInput)
  .output(z.object({ templates: z.array(TemplateSchema), pagination: PaginationSchema }))
  .query(async ({ ctx, input }) => {
    const page = resolvePage(input);
    // Core's full sync reads every page from the first: a first page read with an instance key counts one.
    if (page.page === 1 && !input.search && !input.category && !input.tags?.length && input.featured === undefined) {
      ctx.repeatOnCachedRead((p) => {
        if (p.kind === 'instance') recordFullSync({ keyId: p.keyId, orgId: p.orgId });
      });
    }
    const { rows, total } = await listTemplates(
      catalogScopeOf(ctx.principal),
      input,
      page,
      readSourceOf(ctx.principal),
    );
    return { templates: rows.map(toTemplate), pagination: pagination(page, total) };
  });
