import { DomainError } from '../../../domain/errors';
import { z } from 'zod';
import { recordDownload } from '../../../domain/catalog/downloads';
import { findTemplateBySlug } from '../../../domain/catalog/queries';
import { catalogScopeOf } from '../../../domain/principal';
import { publicProcedure } from '../../trpc';
import { TemplateSchema, toTemplate } from '../../schemas/catalog';

export const getTemplateProcedure = publicProcedure
  .meta({
    responseCache: 'catalog',
    openapi: {
      method: 'GET',
      path: '/catalog/templates/{slug}',
      tags: ['catalog'],
      summary: 'Get one template by slug',
      description:
        '404 when it does not exist or is not visible to the caller. A read with an instance key counts a download (the count in answers may lag by up to a minute).',
    },
  })
  .input(z.object({ slug: z.string().min(1).max(200) }))
  .output(TemplateSchema)
  .query(async ({ ctx, input }) => {
    const row = await findTemplateBySlug(catalogScopeOf(ctx.principal), input.slug);
    if (!row) throw new DomainError('not_found', `Template "${input.slug}" not found`);
    if (ctx.principal.kind === 'instance') {
      // Every read with an instance key counts, also those answered from the response cache (304
      // included). Written in batches (downloads.ts).
      const count = () => recordDownload(row.id);
      count();
      ctx.repeatOnCachedRead(count);
    }
    return toTemplate(row);
  });
