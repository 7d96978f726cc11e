'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { ConfirmDialog } from '../../_components/dialog';
import { Badge, Button, Card, EmptyState, ErrorState, Loading, Table, td, th } from '../../_components/ui';
import { CategoryForm } from './category-form';

type Category = RouterOutputs['admin']['listCategories']['categories'][number];

export function CategoriesView() {
  const utils = trpc.useUtils();
  const list = trpc.admin.listCategories.useQuery({});
  const [formKey, setFormKey] = useState(0);
  const [deleting, setDeleting] = useState<Category | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const create = trpc.admin.createCategory.useMutation({
    onSuccess: async (d) => {
      toast.success(`Category ${d.category.name} created`);
      setFormKey((k) => k + 1);
      create.reset();
      await utils.admin.listCategories.invalidate();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });
  const del = trpc.admin.deleteCategory.useMutation({
    onSuccess: async (d) => {
      toast.success(`Category ${d.deleted.slug} deleted`);
      setDeleting(null);
      await utils.admin.listCategories.invalidate();
    },
    onError: (err) => {
      setDeleteError(errorMessage(err));
      toast.error(errorMessage(err));
    },
  });

  return (
    <div className="space-y-4">
      <Card title="New category">
        <CategoryForm key={formKey} onSubmit={(v) => create.mutate(v)} pending={create.isPending} error={create.error} submitLabel="Create category" />
      </Card>
      {list.isPending ? (
        <Loading rows={4} />
      ) : list.isError ? (
        <ErrorState title="Categories could not be loaded" message={errorMessage(list.error)} />
      ) : list.data.categories.length === 0 ? (
        <EmptyState title="No categories yet">Create the first one above.</EmptyState>
      ) : (
        <Table caption="Categories">
          <thead>
            <tr>
              <th scope="col" className={th}>Name</th>
              <th scope="col" className={th}>Order</th>
              <th scope="col" className={th}>Visibility</th>
              <th scope="col" className={th}>Templates</th>
              <th scope="col" className={th}>Grants</th>
              <th scope="col" className={th}><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 bg-white">
            {list.data.categories.map((c) => (
              <tr key={c.id}>
                <td className={td}>
                  <Link href={`/admin/categories/${c.id}`} className="font-medium text-blue-700 underline-offset-2 hover:underline">{c.name}</Link>
                  <span className="block font-mono text-xs text-zinc-600">{c.slug}</span>
                </td>
                <td className={td}>{c.sort_order}</td>
                <td className={td}>{c.is_private ? <Badge tone="violet">private</Badge> : <Badge tone="green">public</Badge>}</td>
                <td className={td}>{c.template_count}</td>
                <td className={td}>{c.is_private ? c.access_count : '—'}</td>
                <td className={`${td} text-right whitespace-nowrap`}>
                  <div className="flex justify-end gap-2">
                    <Link href={`/admin/categories/${c.id}`} className="rounded-lg border border-zinc-300 px-2.5 py-1 text-sm font-medium hover:bg-zinc-100" aria-label={`Edit ${c.name}`}>
                      Edit
                    </Link>
                    <Button
                      size="sm"
                      variant="danger"
                      aria-label={`Delete ${c.name}`}
                      onClick={() => {
                        setDeleteError(null);
                        setDeleting(c);
                      }}
                    >
                      Delete
                    </Button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && del.mutate({ id: deleting.id })}
        pending={del.isPending}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete category"
      >
        <p>A category can be deleted only when no template uses it. Its access grants are removed with it.</p>
        {deleteError ? (
          <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 font-medium text-red-900">
            {deleteError}
          </p>
        ) : null}
      </ConfirmDialog>
    </div>
  );
}
