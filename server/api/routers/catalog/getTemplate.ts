import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { countDownload, findTemplateBySlug } from '../../../domain/catalog/queries';
import { catalogScopeOf } from '../../../domain/principal';
import { publicProcedure } from '../../trpc';
import { TemplateSchema, toTemplate } from '../../schemas/catalog';

export const getTemplateProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/catalog/templates/{slug}',
      tags: ['catalog'],
      summary: 'Get one template by slug',
      description: '404 when it does not exist or is not visible to the caller. A read with an instance key counts a download.',
    },
  })
  .input(z.object({ slug: z.string().min(1).max(200) }))
  .output(TemplateSchema)
  .query(async ({ ctx, input }) => {
    const row = await findTemplateBySlug(catalogScopeOf(ctx.principal), input.slug);
    if (!row) throw new TRPCError({ code: 'NOT_FOUND', message: `Template "${input.slug}" not found` });
    const template = toTemplate(row);
    if (ctx.principal.kind === 'instance') template.download_count = await countDownload(row.id);
    return template;
  });
