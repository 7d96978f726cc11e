import { z } from 'zod';
import { updateProfileName } from '../../../domain/profile';
import { getOrganization } from '../../../domain/organizations';
import { userProcedure } from '../../trpc';
import { ProfileSchema, personName } from '../../schemas/account';

export const updateProfileProcedure = userProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/account/profile',
      operationId: 'updateProfile',
      tags: ['account'],
      protect: true,
      summary: "Update the caller's name (1 to 100 characters)",
    },
  })
  .input(z.strictObject({ name: personName() }))
  .output(z.object({ profile: ProfileSchema }))
  .mutation(async ({ ctx, input }) => {
    const u = await updateProfileName(ctx.user, input.name);
    const org = u.orgId && u.orgRole ? await getOrganization(u.orgId) : null;
    return {
      profile: {
        id: u.id,
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
