import type { Metadata } from 'next';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { OrganizationDetail } from './organization-detail';

export const metadata: Metadata = { title: 'Organization · Admin' };

export default async function OrganizationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { trpc, HydrateClient } = await serverTrpc();
  // The detail and its grants panel's queries, with the inputs they use.
  await Promise.all([
    trpc.dashboard.adminOrganization.prefetch({ id }),
    trpc.admin.listGrants.prefetch({ org_id: id }),
    trpc.admin.listCategories.prefetch({}),
  ]);
  return (
    <HydrateClient>
      <OrganizationDetail id={id} />
    </HydrateClient>
  );
}
