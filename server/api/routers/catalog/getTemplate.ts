import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { cachedCatalogRead } from '../../../domain/catalog/cache';
import { recordDownload } from '../../../domain/catalog/downloads';
import { findTemplateBySlug } from '../../../domain/catalog/queries';
import { catalogScopeOf } from '../../../domain/principal';
import { answerWithEtag } from '../../httpCache';
import { publicProcedure } from '../../trpc';
import { TemplateSchema, toTemplate } from '../../schemas/catalog';

export const getTemplateProcedure = publicProcedure
  .meta({
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
    const scope = catalogScopeOf(ctx.principal);
    const answer = await cachedCatalogRead(scope, 'get', input.slug, async () => {
      const row = await findTemplateBySlug(scope, input.slug);
      return row ? toTemplate(row) : null;
    });
    if (!answer.value) throw new TRPCError({ code: 'NOT_FOUND', message: `Template "${input.slug}" not found` });
    // Counted even when answered 304: the instance read the template. Written in batches (downloads.ts).
    if (ctx.principal.kind === 'instance') recordDownload(answer.value.id);
    return answerWithEtag(ctx, { value: answer.value, etag: answer.etag });
  });
