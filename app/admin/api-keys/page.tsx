import type { Metadata } from 'next';
import { PageHeader } from '../../_components/ui';
import { apiKeysInput, type RawParams } from '../list-params';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { ApiKeysTable } from './api-keys-table';

export const metadata: Metadata = { title: 'Instance keys · Admin' };

export default async function AdminApiKeysPage({ searchParams }: { searchParams: Promise<RawParams> }) {
  const { trpc, HydrateClient } = await serverTrpc();
  await trpc.admin.listApiKeys.prefetch(apiKeysInput(await searchParams));
  return (
    <div>
      <PageHeader
        title="Instance keys"
        description="Instance keys of every organization. Revoking one stops that instance's access at once."
      />
      <HydrateClient>
        <ApiKeysTable />
      </HydrateClient>
    </div>
  );
}
