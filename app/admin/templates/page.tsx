import type { Metadata } from 'next';
import { ButtonLink, PageHeader } from '../../_components/ui';
import { templatesInput, type RawParams } from '../list-params';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { TemplatesTable } from './templates-table';

export const metadata: Metadata = { title: 'Templates · Admin' };

export default async function AdminTemplatesPage({ searchParams }: { searchParams: Promise<RawParams> }) {
  const { trpc, HydrateClient } = await serverTrpc();
  await trpc.admin.listTemplates.prefetch(templatesInput(await searchParams));
  return (
    <div>
      <PageHeader
        title="Templates"
        description="Every template, private ones included."
        actions={<ButtonLink href="/admin/templates/new">New template</ButtonLink>}
      />
      <HydrateClient>
        <TemplatesTable />
      </HydrateClient>
    </div>
  );
}
