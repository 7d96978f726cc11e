import { z } from 'zod';
import { updateOrganization } from '../../../domain/organizations';
import { adminProcedure } from '../../trpc';
import { ORG_STATUSES, ORG_TIERS } from '../../schemas/account';
import { AdminOrganizationSchema, toAdminOrganization } from '../../schemas/admin';

export const updateOrganizationProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/admin/organizations',
      operationId: 'updateOrganization',
      tags: ['admin'],
      protect: true,
      summary: "Update an organization's status (active | suspended) and/or tier (free | pro | enterprise)",
      description:
        "A suspended organization's instance keys and personal access tokens are refused (403) until it is active again.",
    },
  })
  .input(
    z
      .strictObject({ id: z.uuid(), status: z.enum(ORG_STATUSES).optional(), tier: z.enum(ORG_TIERS).optional() })
      .refine((v) => v.status !== undefined || v.tier !== undefined, {
        message: 'give status and/or tier',
        path: ['status'],
      }),
  )
  .output(z.object({ organization: AdminOrganizationSchema }))
  .mutation(async ({ ctx, input }) => ({
    organization: toAdminOrganization(await updateOrganization(ctx.user, input)),
  }));
