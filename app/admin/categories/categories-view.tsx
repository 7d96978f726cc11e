'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { ConfirmDialog } from '../../_components/dialog';
import { Badge, Button, Card, EmptyState, ErrorState, Loading } from '../../_components/ui';
import { Cell, ListTable, Row } from '../../_components/list-view';
import { SearchForm } from '../../_components/search-form';
import { categoriesFilter } from '../list-params';
import { useListUrl } from '../use-list-url';
import { CategoryForm } from './category-form';

type Category = RouterOutputs['admin']['listCategories']['categories'][number];

export function CategoriesView() {
  const utils = trpc.useUtils();
  const list = trpc.admin.listCategories.useQuery({});
  const url = useListUrl();
  const { search } = categoriesFilter(url.raw);
  const needle = search.toLowerCase();
  const [formKey, setFormKey] = useState(0);
  const [deleting, setDeleting] = useState<Category | null>(null);
  const create = trpc.admin.createCategory.useMutation({
    onSuccess: async (d) => {
      toast.success(`Category ${d.category.name} created`);
      setFormKey((k) => k + 1);
      create.reset();
      await utils.admin.listCategories.invalidate();
    },
    // The form shows the refusal beside its field (or above the form): not a second time in a toast.
  });
  const del = trpc.admin.deleteCategory.useMutation({
    onSuccess: async (d) => {
      toast.success(`Category ${d.deleted.slug} deleted`);
      setDeleting(null);
      await utils.admin.listCategories.invalidate();
    },
  });
  const shown = (list.data?.categories ?? []).filter(
    (c) => !needle || c.name.toLowerCase().includes(needle) || c.slug.toLowerCase().includes(needle),
  );

  return (
    <div className="space-y-4">
      <Card title="New category">
        <CategoryForm
          key={formKey}
          onSubmit={(v) => create.mutate(v)}
          pending={create.isPending}
          error={create.error}
          submitLabel="Create category"
        />
      </Card>
      {list.isPending ? (
        <Loading rows={4} />
      ) : list.isError ? (
        <ErrorState title="Categories could not be loaded" message={errorMessage(list.error)} />
      ) : list.data.categories.length === 0 ? (
        <EmptyState title="No categories yet">Create the first one above.</EmptyState>
      ) : (
        <div className="space-y-3">
          <SearchForm
            id="category-search"
            label="Search categories"
            placeholder="Name or slug"
            value={search}
            onSearch={(q) => url.go({ search: q })}
          />
          {shown.length === 0 ? (
            <EmptyState title={`No category matches “${search}”`}>
              <Link href="/admin/categories" className="font-medium text-blue-700 underline">
                Show all categories
              </Link>
            </EmptyState>
          ) : (
            <ListTable
              caption="Categories"
              columns={[
                { label: 'Name' },
                { label: 'Order' },
                { label: 'Visibility' },
                { label: 'Templates' },
                { label: 'Grants' },
                { label: 'Actions', hidden: true },
              ]}
            >
              {shown.map((c) => (
                <Row key={c.id}>
                  <Cell primary>
                    <Link
                      href={`/admin/categories/${c.id}`}
                      className="font-medium text-blue-700 underline-offset-2 hover:underline"
                    >
                      {c.name}
                    </Link>
                    <span className="block font-mono text-xs break-all text-zinc-600">{c.slug}</span>
                  </Cell>
                  <Cell label="Order">{c.sort_order}</Cell>
                  <Cell label="Visibility">
                    {c.is_private ? <Badge tone="violet">private</Badge> : <Badge tone="green">public</Badge>}
                  </Cell>
                  <Cell label="Templates">{c.template_count}</Cell>
                  <Cell label="Grants">{c.is_private ? c.access_count : '—'}</Cell>
                  <Cell actions>
                    <Link
                      href={`/admin/categories/${c.id}`}
                      className="rounded-lg border border-zinc-300 px-2.5 py-1 text-sm font-medium hover:bg-zinc-100"
                      aria-label={`Edit ${c.name}`}
                    >
                      Edit
                    </Link>
                    {/* The server refuses to delete a category templates still use: not offered, the reason shown instead. */}
                    {c.template_count === 0 ? (
                      <Button
                        size="sm"
                        variant="danger"
                        aria-label={`Delete ${c.name}`}
                        onClick={() => {
                          del.reset();
                          setDeleting(c);
                        }}
                      >
                        Delete
                      </Button>
                    ) : (
                      <span className="text-xs text-zinc-600">In use: move or delete its templates to delete it</span>
                    )}
                  </Cell>
                </Row>
              ))}
            </ListTable>
          )}
        </div>
      )}
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && del.mutate({ id: deleting.id })}
        pending={del.isPending}
        error={del.error ? errorMessage(del.error) : null}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete category"
      >
        <p>
          {deleting?.slug} is deleted
          {deleting?.access_count
            ? ` with its ${deleting.access_count} access grant${deleting.access_count === 1 ? '' : 's'}`
            : ''}
          . This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}
