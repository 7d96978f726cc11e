import { fleetOverview } from '../../../domain/fleet';
import { adminProcedure } from '../../trpc';
import { FleetOverviewSchema, fleetInput, toFleetOverview } from '../../schemas/fleet';
import { resolvePage } from '../../schemas/query';

export const fleetProcedure = adminProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/admin/fleet',
      operationId: 'getFleet',
      tags: ['admin'],
      protect: true,
      summary: 'The fleet overview: 30 days of daily rollups, top templates, Core versions and instance health',
      description: 'Read from the daily rollups and the per-instance tables only (docs/fleet-overview.md).',
    },
  })
  .input(fleetInput)
  .output(FleetOverviewSchema)
  .query(async ({ input }) => {
    const page = resolvePage(input);
    const { search, freshness, version } = input;
    return toFleetOverview(await fleetOverview({ kind: 'admin' }, { search, freshness, version }, page), page);
  });
