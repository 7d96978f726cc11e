import { z } from 'zod';
import { listInstanceKeys } from '../../../domain/instanceKeyAdmin';
import { orgMemberProcedure } from '../../trpc';
import { ApiKeySchema, toApiKey } from '../../schemas/account';

export const listApiKeysProcedure = orgMemberProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/api-keys',
      operationId: 'listApiKeys',
      tags: ['account'],
      protect: true,
      summary: "The organization's instance keys (never the key or its hash)",
      description: 'Any member of the organization.',
    },
  })
  .input(z.object({}))
  .output(z.object({ apiKeys: z.array(ApiKeySchema) }))
  .query(async ({ ctx }) => ({ apiKeys: (await listInstanceKeys(ctx.org.id)).map(toApiKey) }));
