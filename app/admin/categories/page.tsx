import type { Metadata } from 'next';
import { PageHeader } from '../../_components/ui';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { CategoriesView } from './categories-view';

export const metadata: Metadata = { title: 'Categories · Admin' };

export default async function AdminCategoriesPage() {
  const { trpc, HydrateClient } = await serverTrpc();
  // The whole list (not paged); the URL's ?search= narrows it in the browser.
  await trpc.admin.listCategories.prefetch({});
  return (
    <div>
      <PageHeader
        title="Categories"
        description="Templates are grouped into categories; private categories are visible only to organizations holding a grant."
      />
      <HydrateClient>
        <CategoriesView />
      </HydrateClient>
    </div>
  );
}
