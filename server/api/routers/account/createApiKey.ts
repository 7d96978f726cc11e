import { z } from 'zod';
import { createInstanceKeyAs } from '../../../domain/instanceKeyAdmin';
import { orgAdminProcedure } from '../../trpc';
import { IssuedApiKeySchema, keyName, toIssuedApiKey } from '../../schemas/account';

export const createApiKeyProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/api-keys',
      operationId: 'createApiKey',
      tags: ['account'],
      protect: true,
      summary: 'Create an instance key; the full key appears only in this response',
      description: 'Organization admins only.',
    },
  })
  .input(z.strictObject({ name: keyName() }))
  .output(z.object({ apiKey: IssuedApiKeySchema }))
  .mutation(async ({ ctx, input }) => {
    const { key, secret } = await createInstanceKeyAs(ctx.user, ctx.org.id, input.name);
    return { apiKey: toIssuedApiKey(key, secret) };
  });
