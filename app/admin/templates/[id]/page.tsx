import type { Metadata } from 'next';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { EditTemplate } from './edit-template';

export const metadata: Metadata = { title: 'Edit template · Admin' };

export default async function EditTemplatePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { trpc, HydrateClient } = await serverTrpc();
  await Promise.all([trpc.dashboard.adminTemplate.prefetch({ id }), trpc.admin.listCategories.prefetch({})]);
  return (
    <HydrateClient>
      <EditTemplate id={id} />
    </HydrateClient>
  );
}
