import { z } from 'zod';
import { revokeInstanceKeyAs } from '../../../domain/instanceKeyAdmin';
import { adminProcedure } from '../../trpc';

export const revokeApiKeyProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/admin/api-keys',
      operationId: 'revokeAnyApiKey',
      tags: ['admin'],
      protect: true,
      summary: 'Revoke any instance key (id in the JSON body or as ?id=); unusable at once',
    },
  })
  .input(z.object({ id: z.uuid() }))
  .output(z.object({ apiKey: z.object({ id: z.uuid(), org_id: z.uuid(), status: z.literal('revoked') }) }))
  .mutation(async ({ ctx, input }) => {
    const row = await revokeInstanceKeyAs(ctx.user, null, input.id);
    return { apiKey: { id: row.id, org_id: row.orgId, status: 'revoked' as const } };
  });
