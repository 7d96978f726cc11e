import type { Metadata } from 'next';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { CategoryDetail } from './category-detail';

export const metadata: Metadata = { title: 'Category · Admin' };

export default async function CategoryPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { trpc, HydrateClient } = await serverTrpc();
  await Promise.all([
    trpc.admin.listCategories.prefetch({}),
    trpc.admin.listGrants.prefetch({ category_id: id }),
    trpc.admin.listOrganizations.prefetch({ limit: 20 }),
  ]);
  return (
    <HydrateClient>
      <CategoryDetail id={id} />
    </HydrateClient>
  );
}
