import { z } from 'zod';
import { getOrganization } from '../../../domain/organizations';
import { userProcedure } from '../../trpc';
import { ProfileSchema } from '../../schemas/account';

export const getProfileProcedure = userProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/profile',
      operationId: 'getProfile',
      tags: ['account'],
      protect: true,
      summary: "The caller's profile with organization info",
    },
  })
  .input(z.object({}))
  .output(z.object({ profile: ProfileSchema }))
  .query(async ({ ctx }) => {
    const u = ctx.user;
    const org = u.orgId && u.orgRole ? await getOrganization(u.orgId) : null;
    return {
      profile: {
        id: u.userId,
        email: u.email,
        name: u.name,
        role: u.role,
        organization:
          org && u.orgRole
            ? { id: org.id, name: org.name, slug: org.slug, tier: org.tier, status: org.status, role: u.orgRole }
            : null,
      },
    };
  });
