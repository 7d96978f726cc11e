import { z } from 'zod';
import { templateUpdates } from '../../../domain/catalog/updates';
import { catalogScopeOf, readSourceOf } from '../../../domain/principal';
import { recordPoll } from '../../../domain/usage';
import { publicProcedure } from '../../trpc';
import { TemplateSchema, toTemplate } from '../../schemas/catalog';
import { isoDateTime } from '../../schemas/query';

export const templateUpdatesProcedure = publicProcedure
  .meta({
    responseCache: 'catalog',
    credentialOptional: true,
    openapi: {
      method: 'GET',
      path: '/catalog/templates/updates',
      operationId: 'listTemplateUpdates',
      tags: ['catalog'],
      summary: 'Templates changed since a time, and templates removed from the caller’s view',
      description:
        'One page of at most 500 changes (templates plus removed) in (updated_at, id) order. Send checked_at ' +
        'back verbatim as the next since: every change up to that point is included; a change may be sent ' +
        'twice across polls, never missed. has_more: true means checked_at is a point inside the backlog ' +
        '(possibly inside a bulk write sharing one updated_at; its fraction then carries more than ' +
        'microsecond digits) and the next page is available at once; false means the answer is complete up to ' +
        'checked_at. Apply templates, then drop removed. When nothing changed, checked_at equals since (so an ' +
        'idle poll is the same request each time; send If-None-Match for a 304).',
    },
  })
  .input(z.object({ since: isoDateTime() }))
  .output(
    z.object({
      templates: z.array(TemplateSchema),
      removed: z.array(z.object({ id: z.uuid(), slug: z.string(), removed_at: z.string() })),
      checked_at: z.string(),
      has_more: z.boolean(),
    }),
  )
  .query(async ({ ctx, input }) => {
    const { rows, removed, checkedAt, hasMore } = await templateUpdates(
      catalogScopeOf(ctx.principal),
      input.since,
      readSourceOf(ctx.principal),
    );
    // Each answer to an instance key is a poll; a complete one (has_more false) a successful sync (usage.ts).
    ctx.repeatOnCachedRead((p, status) => {
      if (p.kind === 'instance') {
        recordPoll({ keyId: p.keyId, orgId: p.orgId }, { notModified: status === 304, complete: !hasMore, checkedAt });
      }
    });
    return { templates: rows.map(toTemplate), removed, checked_at: checkedAt, has_more: hasMore };
  });
