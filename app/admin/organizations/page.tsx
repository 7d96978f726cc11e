import type { Metadata } from 'next';
import { PageHeader } from '../../_components/ui';
import { organizationsInput, type RawParams } from '../list-params';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { OrganizationsTable } from './organizations-table';

export const metadata: Metadata = { title: 'Organizations · Admin' };

export default async function AdminOrganizationsPage({ searchParams }: { searchParams: Promise<RawParams> }) {
  const { trpc, HydrateClient } = await serverTrpc();
  await trpc.admin.listOrganizations.prefetch(organizationsInput(await searchParams));
  return (
    <div>
      <PageHeader
        title="Organizations"
        description="Status, tier and private-category access of every organization. Open one to change them."
      />
      <HydrateClient>
        <OrganizationsTable />
      </HydrateClient>
    </div>
  );
}
