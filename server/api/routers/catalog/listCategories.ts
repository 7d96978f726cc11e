import { z } from 'zod';
import { listCategories } from '../../../domain/catalog/categories';
import { catalogScopeOf, readSourceOf } from '../../../domain/principal';
import { publicProcedure } from '../../trpc';
import { CategorySchema, toCategory } from '../../schemas/catalog';

export const listCategoriesProcedure = publicProcedure
  .meta({
    responseCache: 'catalog',
    credentialOptional: true,
    openapi: {
      method: 'GET',
      path: '/catalog/categories',
      operationId: 'listCategories',
      tags: ['catalog'],
      summary: 'List categories visible to the caller, with the number of templates the caller can see',
    },
  })
  .input(z.object({}))
  .output(z.object({ categories: z.array(CategorySchema) }))
  .query(async ({ ctx }) => {
    const rows = await listCategories(catalogScopeOf(ctx.principal), readSourceOf(ctx.principal));
    return { categories: rows.map(toCategory) };
  });
