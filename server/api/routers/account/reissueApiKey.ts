import { z } from 'zod';
import { reissueInstanceKeyAs } from '../../../domain/instanceKeyAdmin';
import { orgAdminProcedure } from '../../trpc';
import { IssuedApiKeySchema, toIssuedApiKey } from '../../schemas/account';

export const reissueApiKeyProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/account/api-keys',
      operationId: 'reissueApiKey',
      tags: ['account'],
      protect: true,
      summary: 'Re-issue an instance key: a new secret under the same id; the old secret stops working at once',
      description:
        'Organization admins only. 404 for a key of another organization; 409 for a revoked key (revocation is final).',
    },
  })
  .input(z.strictObject({ id: z.uuid() }))
  .output(z.object({ apiKey: IssuedApiKeySchema }))
  .mutation(async ({ ctx, input }) => {
    const { key, secret } = await reissueInstanceKeyAs(ctx.user, ctx.org.id, input.id);
    return { apiKey: toIssuedApiKey(key, secret) };
  });
