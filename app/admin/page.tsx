import type { Metadata } from 'next';
import { PageHeader } from '../_components/ui';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { FleetView } from '../_components/fleet/fleet-view';
import { fleetInput, type RawParams } from './list-params';
import { StatsView } from './stats-view';

export const metadata: Metadata = { title: 'Admin' };

export default async function AdminHome({ searchParams }: { searchParams: Promise<RawParams> }) {
  const { trpc, HydrateClient } = await serverTrpc();
  // Server-rendered data: both queries are answered here (from the daily rollups) and hydrated.
  await Promise.all([trpc.admin.stats.prefetch({}), trpc.admin.fleet.prefetch(fleetInput(await searchParams))]);
  return (
    <div>
      <PageHeader
        title="Admin overview"
        description="System-wide counts and the fleet over the last 30 days. Every change you make here is recorded in the audit log."
        actions={
          <a href="/docs/api" className="text-sm text-blue-700 underline-offset-2 hover:underline">
            API reference
          </a>
        }
      />
      <HydrateClient>
        <div className="space-y-6">
          <StatsView />
          <FleetView scope="admin" />
        </div>
      </HydrateClient>
    </div>
  );
}
