import type { Metadata } from 'next';
import { PageHeader } from '../_components/ui';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { StatsView } from './stats-view';

export const metadata: Metadata = { title: 'Admin' };

export default async function AdminHome() {
  const { trpc, HydrateClient } = await serverTrpc();
  await trpc.admin.stats.prefetch({});
  return (
    <div>
      <PageHeader title="Admin overview" description="System-wide counts. Every change you make here is recorded in the audit log." />
      <HydrateClient>
        <StatsView />
      </HydrateClient>
    </div>
  );
}
