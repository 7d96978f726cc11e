'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { ConfirmDialog } from '../../_components/dialog';
import { Badge, Button, EmptyState } from '../../_components/ui';
import { Cell, ListTable, ListView, Row } from '../../_components/list-view';
import { SearchForm } from '../../_components/search-form';
import { templatesInput } from '../list-params';
import { useListUrl } from '../use-list-url';
import { RelativeTime } from '../../_components/relative-time';

type Template = RouterOutputs['admin']['listTemplates']['templates'][number];

export function TemplatesTable() {
  const utils = trpc.useUtils();
  const url = useListUrl();
  const input = templatesInput(url.raw);
  const query = input.search ?? '';
  const [deleting, setDeleting] = useState<Template | null>(null);
  const list = trpc.admin.listTemplates.useQuery(input, { placeholderData: (prev) => prev });
  // The edit page returns to this list as it is now (search and page).
  const editHref = (id: string) => `/admin/templates/${id}${url.query ? `?from=${encodeURIComponent(url.query)}` : ''}`;
  const del = trpc.admin.deleteTemplate.useMutation({
    onSuccess: async (d) => {
      toast.success(`Template ${d.deleted.slug} deleted`);
      setDeleting(null);
      await utils.admin.listTemplates.invalidate();
    },
  });

  return (
    <div className="space-y-3">
      <SearchForm
        id="tpl-search"
        label="Search templates"
        placeholder="Search name or description"
        value={query}
        onSearch={(q) => url.go({ search: q })}
      />
      <ListView
        query={list}
        items={(data) => data.templates}
        loadingRows={6}
        errorTitle="Templates could not be loaded"
        empty={
          <EmptyState title={query ? `No template matches “${query}”` : 'No templates yet'}>
            <Link href="/admin/templates/new" className="font-medium text-blue-700 underline">
              Create a template
            </Link>
          </EmptyState>
        }
        onPage={(page) => url.go({ page })}
      >
        {(templates) => (
          <ListTable
            caption="Templates"
            columns={[
              { label: 'Name' },
              { label: 'Category' },
              { label: 'Version' },
              { label: 'Visibility' },
              { label: 'Updated' },
              { label: 'Actions', hidden: true },
            ]}
          >
            {templates.map((t) => (
              <Row key={t.id}>
                <Cell primary>
                  <Link href={editHref(t.id)} className="font-medium text-blue-700 underline-offset-2 hover:underline">
                    {t.name}
                  </Link>
                  <span className="block font-mono text-xs break-all text-zinc-600">{t.slug}</span>
                </Cell>
                <Cell label="Category">{t.category_name}</Cell>
                <Cell label="Version">{t.version || '—'}</Cell>
                <Cell label="Visibility">
                  <span className="inline-flex flex-wrap gap-1">
                    {t.is_public ? <Badge tone="green">public</Badge> : <Badge tone="violet">not public</Badge>}
                    {t.is_featured ? <Badge tone="amber">featured</Badge> : null}
                  </span>
                </Cell>
                <Cell label="Updated" nowrap>
                  <RelativeTime value={t.updated_at} />
                </Cell>
                <Cell actions>
                  <Link
                    href={editHref(t.id)}
                    className="rounded-lg border border-zinc-300 px-2.5 py-1 text-sm font-medium hover:bg-zinc-100"
                    aria-label={`Edit ${t.name}`}
                  >
                    Edit
                  </Link>
                  <Button
                    size="sm"
                    variant="danger"
                    onClick={() => {
                      del.reset();
                      setDeleting(t);
                    }}
                    aria-label={`Delete ${t.name}`}
                  >
                    Delete
                  </Button>
                </Cell>
              </Row>
            ))}
          </ListTable>
        )}
      </ListView>
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && del.mutate({ id: deleting.id })}
        pending={del.isPending}
        error={del.error ? errorMessage(del.error) : null}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete template"
      >
        <p>{deleting?.slug} disappears from the catalog of every instance at their next sync. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
