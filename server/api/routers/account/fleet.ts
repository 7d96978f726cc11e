import { fleetOverview } from '../../../domain/fleet';
import { orgAdminProcedure } from '../../trpc';
import { FleetOverviewSchema, fleetInput, toFleetOverview } from '../../schemas/fleet';
import { resolvePage } from '../../schemas/query';

export const fleetProcedure = orgAdminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/account/fleet',
      operationId: 'getOrganizationFleet',
      tags: ['account'],
      protect: true,
      summary: "The organization's instances: 30 days of daily rollups, Core versions and instance health",
      description: 'Organization admins; only the caller organization’s instances (top templates are empty here).',
    },
  })
  .input(fleetInput)
  .output(FleetOverviewSchema)
  .query(async ({ ctx, input }) => {
    const page = resolvePage(input);
    const { search, freshness, version } = input;
    return toFleetOverview(
      await fleetOverview({ kind: 'org', orgId: ctx.org.id }, { search, freshness, version }, page),
      page,
    );
  });
