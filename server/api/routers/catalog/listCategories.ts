import { z } from 'zod';
import { cachedCatalogRead } from '../../../domain/catalog/cache';
import { listCategories } from '../../../domain/catalog/queries';
import { catalogScopeOf } from '../../../domain/principal';
import { answerWithEtag } from '../../httpCache';
import { publicProcedure } from '../../trpc';
import { CategorySchema, toCategory } from '../../schemas/catalog';

export const listCategoriesProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/catalog/categories',
      tags: ['catalog'],
      summary: 'List categories visible to the caller, with the number of templates the caller can see',
    },
  })
  .input(z.object({}))
  .output(z.object({ categories: z.array(CategorySchema) }))
  .query(async ({ ctx }) => {
    const scope = catalogScopeOf(ctx.principal);
    const answer = await cachedCatalogRead(scope, 'categories', null, async () => ({
      categories: (await listCategories(scope)).map(toCategory),
    }));
    return answerWithEtag(ctx, answer);
  });
