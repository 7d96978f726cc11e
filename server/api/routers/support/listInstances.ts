import { ServiceError } from '../../../domain/errors';
import { z } from 'zod';
import { isPlatformAdmin } from '../../../domain/principal';
import { listInstances, type InstanceScope } from '../../../domain/support/instances';
import { userProcedure } from '../../trpc';
import { PaginationSchema, pageInput, pagination, resolvePage } from '../../schemas/query';
import { InstanceInfoSchema, PublishState, toInstanceInfo } from '../../schemas/support';

const DashboardInstanceSchema = InstanceInfoSchema.shape.instance.extend({
  dns_publish: z
    .object({
      state: PublishState,
      attempts: z.number().int(),
      /** Platform admins only (null for others): the DNS server's answer to the last failed push. */
      error: z.string().nullable(),
      next_attempt_at: z.string().nullable(),
      published_at: z.string().nullable(),
      deleting: z.boolean(),
    })
    .nullable(),
});

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Dashboard: instances with their last report and DNS record, including the DNS publish state.
 * Platform admins see every organization (filter org_id, publish_state); members their organization.
 */
export const listInstancesProcedure = userProcedure
  .input(z.object({ org_id: z.uuid().optional(), publish_state: PublishState.optional(), ...pageInput }))
  .output(z.object({ instances: z.array(DashboardInstanceSchema), pagination: PaginationSchema }))
  .query(async ({ ctx, input }) => {
    const admin = isPlatformAdmin(ctx.user);
    let scope: InstanceScope;
    if (admin) scope = { kind: 'admin' };
    else if (ctx.user.orgId && ctx.user.orgRole) scope = { kind: 'org', orgId: ctx.user.orgId };
    else throw new ServiceError('forbidden', 'You do not belong to an organization');
    const page = resolvePage(input);
    const { rows, total } = await listInstances(
      scope,
      { orgId: input.org_id, publishState: input.publish_state },
      page,
    );
    return {
      instances: rows.map((row) => ({
        ...toInstanceInfo(row).instance,
        dns_publish: row.dnsPublishState
          ? {
              state: row.dnsPublishState,
              attempts: row.dnsPublishAttempts ?? 0,
              error: admin ? row.dnsPublishError : null,
              next_attempt_at: isoOrNull(row.dnsPublishNextAt),
              published_at: isoOrNull(row.dnsPublishedAt),
              deleting: row.dnsDeletedAt !== null,
            }
          : null,
      })),
      pagination: pagination(page, total),
    };
  });
