import { z } from 'zod';
import { getOrganization } from '../../../domain/organizations';
import { userProcedure } from '../../trpc';
import { OrganizationSchema } from '../../schemas/account';

export const getOrganizationProcedure = userProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/organizations',
      operationId: 'getOrganization',
      tags: ['account'],
      protect: true,
      summary: "The caller's organization with the caller's role in it, or null",
    },
  })
  .input(z.object({}))
  .output(z.object({ organization: OrganizationSchema.nullable() }))
  .query(async ({ ctx }) => {
    const { orgId, orgRole } = ctx.user;
    const org = orgId && orgRole ? await getOrganization(orgId) : null;
    if (!org || !orgRole) return { organization: null };
    return {
      organization: {
        id: org.id,
        name: org.name,
        slug: org.slug,
        status: org.status,
        tier: org.tier,
        role: orgRole,
        created_at: org.createdAt.toISOString(),
      },
    };
  });
