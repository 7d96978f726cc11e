import { ServiceError } from '../../../domain/errors';
import { z } from 'zod';
import { recordDownload } from '../../../domain/catalog/downloads';
import { findTemplateBySlug } from '../../../domain/catalog/templateBySlug';
import { catalogScopeOf, readSourceOf } from '../../../domain/principal';
import { publicProcedure } from '../../trpc';
import { TemplateSchema, toTemplate } from '../../schemas/catalog';

export const getTemplateProcedure = publicProcedure
  .meta({
    responseCache: 'catalog',
    credentialOptional: true,
    openapi: {
      method: 'GET',
      path: '/catalog/templates/{slug}',
      operationId: 'getTemplate',
      tags: ['catalog'],
      summary: 'Get one template by slug',
      description:
        '404 when it does not exist or is not visible to the caller. A read with an instance key counts a ' +
        'download (the count in answers may lag by up to a minute).',
    },
  })
  .input(z.object({ slug: z.string().min(1).max(200) }))
  .output(TemplateSchema)
  .query(async ({ ctx, input }) => {
    const row = await findTemplateBySlug(catalogScopeOf(ctx.principal), input.slug, readSourceOf(ctx.principal));
    if (!row) throw new ServiceError('not_found', `Template "${input.slug}" not found`);
    // Every read with an instance key counts, also those answered from the response cache (304
    // included): REST runs the effect after each answer with that request's caller. Written in batches.
    ctx.repeatOnCachedRead((p) => {
      if (p.kind === 'instance') recordDownload(row.id, { keyId: p.keyId, orgId: p.orgId });
    });
    return toTemplate(row);
  });
