import { z } from 'zod';
import { acknowledgeUrlChanges } from '../../../domain/support/instances';
import { orgAdminProcedure } from '../../trpc';
import { isoDateTime } from '../../schemas/query';

export const acknowledgeUrlChangesInput = z.strictObject({
  instance_id: z.uuid({ error: 'must be the id (UUID) of an instance key of your organization' }),
  through: isoDateTime().describe(
    'The `at` of the newest change you were shown: changes up to it are acknowledged, later ones stay',
  ),
});

export const acknowledgeUrlChangesProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/fleet/url-changes/acknowledge',
      operationId: 'acknowledgeInstanceUrlChanges',
      tags: ['account'],
      protect: true,
      summary: "Acknowledge an instance's mcp_url/base_url changes shown on its health row",
      description:
        'Organization admins only. Clears the changes up to `through` from the instance’s health row (account ' +
        'fleet) and records the acknowledgement in the audit log. 404 for an instance of another ' +
        'organization.',
    },
  })
  .input(acknowledgeUrlChangesInput)
  .output(z.object({ remaining: z.number().int().describe('Changes newer than `through`, still shown') }))
  .mutation(({ ctx, input }) =>
    acknowledgeUrlChanges(ctx.user, ctx.org.id, input.instance_id, new Date(input.through)),
  );
