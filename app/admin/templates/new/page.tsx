import type { Metadata } from 'next';
import { PageHeader } from '../../../_components/ui';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { TemplateForm } from '../template-form';

export const metadata: Metadata = { title: 'New template · Admin' };

export default async function NewTemplatePage() {
  const { trpc, HydrateClient } = await serverTrpc();
  await trpc.admin.listCategories.prefetch({});
  return (
    <div>
      <PageHeader title="New template" />
      <HydrateClient>
        <TemplateForm />
      </HydrateClient>
    </div>
  );
}
