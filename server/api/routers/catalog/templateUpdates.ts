import { z } from 'zod';
import { templateUpdates } from '../../../domain/catalog/queries';
import { catalogScopeOf } from '../../../domain/principal';
import { publicProcedure } from '../../trpc';
import { TemplateSchema, toTemplate } from '../../schemas/catalog';
import { isoDateTime } from '../../schemas/query';

export const templateUpdatesProcedure = publicProcedure
  .meta({
    responseCache: 'catalog',
    openapi: {
      method: 'GET',
      path: '/catalog/templates/updates',
      tags: ['catalog'],
      summary: 'Templates changed since a time, and templates removed from the caller’s view',
      description:
        'Use checked_at as the next since. Every change stamped before checked_at is included; a change may be sent twice across polls, never missed. Apply templates, then drop removed. When nothing changed, checked_at equals since (so an idle poll is the same request each time; send If-None-Match for a 304).',
    },
  })
  .input(z.object({ since: isoDateTime() }))
  .output(
    z.object({
      templates: z.array(TemplateSchema),
      removed: z.array(z.object({ id: z.uuid(), slug: z.string(), removed_at: z.string() })),
      checked_at: z.string(),
    }),
  )
  .query(async ({ ctx, input }) => {
    const { rows, removed, checkedAt } = await templateUpdates(catalogScopeOf(ctx.principal), new Date(input.since));
    return { templates: rows.map(toTemplate), removed, checked_at: checkedAt.toISOString() };
  });
