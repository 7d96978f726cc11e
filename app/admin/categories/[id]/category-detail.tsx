'use client';
import Link from 'next/link';
import { toast } from 'sonner';
import { errorMessage } from '../../../_lib/errors';
import { trpc } from '../../../_lib/trpc';
import { Badge, Card, ErrorState, Loading, PageHeader } from '../../../_components/ui';
import { GrantsPanel } from '../../grants-panel';
import { CategoryForm } from '../category-form';

export function CategoryDetail({ id }: { id: string }) {
  const utils = trpc.useUtils();
  const list = trpc.admin.listCategories.useQuery({});
  const update = trpc.admin.updateCategory.useMutation({
    onSuccess: async (d) => {
      toast.success(`Category ${d.category.name} saved`);
      await utils.admin.listCategories.invalidate();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });
  if (list.isPending) return <Loading rows={6} />;
  if (list.isError) return <ErrorState title="The category could not be loaded" message={errorMessage(list.error)} />;
  const category = list.data.categories.find((c) => c.id === id);
  if (!category)
    return (
      <ErrorState title="No such category" message="It may have been deleted.">
        <Link href="/admin/categories" className="mt-2 inline-block font-medium underline">
          Back to categories
        </Link>
      </ErrorState>
    );
  return (
    <div className="space-y-4">
      <p className="text-sm">
        <Link href="/admin/categories" className="text-blue-700 underline">
          ← Categories
        </Link>
      </p>
      <PageHeader
        title={category.name}
        description={`${category.template_count} template${category.template_count === 1 ? '' : 's'}`}
        actions={category.is_private ? <Badge tone="violet">private</Badge> : <Badge tone="green">public</Badge>}
      />
      <Card title="Details">
        <CategoryForm
          key={category.updated_at}
          category={category}
          onSubmit={(v) => update.mutate({ id, ...v })}
          pending={update.isPending}
          error={update.error}
          submitLabel="Save category"
        />
      </Card>
      <GrantsPanel categoryId={id} isPrivate={category.is_private} />
    </div>
  );
}
