import { z } from 'zod';
import { createOrganization } from '../../../domain/organizations';
import { userProcedure } from '../../trpc';
import { OrganizationSchema, orgName, orgSlug } from '../../schemas/account';

export const createOrganizationProcedure = userProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/account/organizations',
      operationId: 'createOrganization',
      tags: ['account'],
      protect: true,
      summary: 'Create an organization; the caller becomes its admin and a free subscription is created',
      description:
        'slug: lowercase letters, digits and hyphens, 3 to 63 characters, unique (409 when taken). 409 when the caller already belongs to an organization.',
    },
  })
  .input(z.strictObject({ name: orgName(), slug: orgSlug() }))
  .output(z.object({ organization: OrganizationSchema }))
  .mutation(async ({ ctx, input }) => {
    const org = await createOrganization(ctx.user, input);
    return {
      organization: {
        id: org.id,
        name: org.name,
        slug: org.slug,
        status: org.status,
        tier: org.tier,
        role: 'admin' as const,
        created_at: org.createdAt.toISOString(),
      },
    };
  });
