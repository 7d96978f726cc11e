import { z } from 'zod';
import { listPats } from '../../../domain/pats';
import { PatSchema, toPat } from '../../schemas/tokens';
import { userProcedure } from '../../trpc';

export const listTokensProcedure = userProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/tokens',
      operationId: 'listPersonalAccessTokens',
      tags: ['account'],
      protect: true,
      summary: 'List personal access tokens',
      description:
        'The caller’s own tokens; an organization admin also sees every token of the organization. Never ' +
        'returns secrets. JWT only (personal access tokens are refused here).',
    },
  })
  .input(z.object({}))
  .output(z.object({ tokens: z.array(PatSchema) }))
  .query(async ({ ctx }) => ({ tokens: (await listPats(ctx.user)).map(toPat) }));
