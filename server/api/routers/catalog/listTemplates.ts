import { z } from 'zod';
import { cachedCatalogRead } from '../../../domain/catalog/cache';
import { listTemplates } from '../../../domain/catalog/queries';
import { catalogScopeOf } from '../../../domain/principal';
import { answerWithEtag } from '../../httpCache';
import { publicProcedure } from '../../trpc';
import { TemplateSchema, toTemplate } from '../../schemas/catalog';
import { PaginationSchema, pageInput, pagination, queryBool, queryList, resolvePage } from '../../schemas/query';

export const TemplateFiltersInput = {
  category: z.string().trim().max(100).optional().describe('Category slug'),
  search: z.string().trim().max(200).optional().describe('Case-insensitive match on name or description'),
  featured: queryBool().optional().describe('When true, only featured templates'),
  tags: queryList().optional().describe('Comma-separated; templates having any of these tags'),
};

export const listTemplatesInput = z.object({ ...TemplateFiltersInput, ...pageInput });

export const listTemplatesProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/catalog/templates',
      tags: ['catalog'],
      summary: 'List templates visible to the caller',
      description: 'Instance key, admin JWT or no credential; see the visibility rules. limit defaults to 50 and is clamped to 100.',
    },
  })
  .input(listTemplatesInput)
  .output(z.object({ templates: z.array(TemplateSchema), pagination: PaginationSchema }))
  .query(async ({ ctx, input }) => {
    const scope = catalogScopeOf(ctx.principal);
    const page = resolvePage(input);
    const filters = {
      category: input.category || undefined,
      search: input.search || undefined,
      featured: input.featured === true,
      tags: input.tags?.length ? [...new Set(input.tags)].sort() : undefined,
    };
    const answer = await cachedCatalogRead(scope, 'list', { ...filters, search: filters.search?.toLowerCase(), ...page }, async () => {
      const { rows, total } = await listTemplates(scope, filters, page);
      return { templates: rows.map(toTemplate), pagination: pagination(page, total) };
    });
    return answerWithEtag(ctx, answer);
  });
