import { ServiceError } from '../../../domain/errors';
import { z } from 'zod';
import { getOrganization } from '../../../domain/organizations';
import { adminProcedure } from '../../trpc';
import { ORG_STATUSES, ORG_TIERS } from '../../schemas/account';

/** One organization by id, for the admin organization page (the admin list is paginated, without a by-id read). */
export const adminOrganizationProcedure = adminProcedure
  .input(z.object({ id: z.uuid() }))
  .output(
    z.object({
      organization: z.object({
        id: z.uuid(),
        name: z.string(),
        slug: z.string(),
        status: z.enum(ORG_STATUSES),
        tier: z.enum(ORG_TIERS),
        created_at: z.string(),
      }),
    }),
  )
  .query(async ({ input }) => {
    const org = await getOrganization(input.id);
    if (!org) throw new ServiceError('not_found', 'id: no such organization');
    return {
      organization: {
        id: org.id,
        name: org.name,
        slug: org.slug,
        status: org.status,
        tier: org.tier,
        created_at: org.createdAt.toISOString(),
      },
    };
  });
