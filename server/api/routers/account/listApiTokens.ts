import { z } from 'zod';
import { listScriptTokens } from '../../../domain/scriptTokens';
import { ApiTokenSchema, toApiToken } from '../../schemas/scriptTokens';
import { userProcedure } from '../../trpc';

export const listApiTokensProcedure = userProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/api-tokens',
      operationId: 'listApiTokens',
      tags: ['account'],
      protect: true,
      summary: "The caller's API tokens (Hub JWTs from `hub token` and the dashboard's API access panel)",
      description:
        'Newest first, at most 100; never the tokens themselves. Browser sessions are not listed (sign-out ' +
        'and sign-out-everywhere end them). Personal access tokens (svp_) are at /account/tokens.',
    },
  })
  .input(z.object({}))
  .output(z.object({ tokens: z.array(ApiTokenSchema) }))
  .query(async ({ ctx }) => ({ tokens: (await listScriptTokens(ctx.user.userId)).map(toApiToken) }));
