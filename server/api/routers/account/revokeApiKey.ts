import { z } from 'zod';
import { revokeInstanceKeyAs } from '../../../domain/instanceKeyAdmin';
import { orgAdminProcedure } from '../../trpc';

export const revokeApiKeyProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/account/api-keys',
      operationId: 'revokeApiKey',
      tags: ['account'],
      protect: true,
      summary: 'Revoke an instance key: unusable at once',
      description:
        'id in the JSON body or as ?id=. Organization admins only. 404 for a key of another organization. Revoking a revoked key is a no-op.',
    },
  })
  .input(z.object({ id: z.uuid() }))
  .output(z.object({ apiKey: z.object({ id: z.uuid(), status: z.literal('revoked') }) }))
  .mutation(async ({ ctx, input }) => {
    const row = await revokeInstanceKeyAs(ctx.user, ctx.org.id, input.id);
    return { apiKey: { id: row.id, status: 'revoked' as const } };
  });
