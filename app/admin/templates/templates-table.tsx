'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { ConfirmDialog } from '../../_components/dialog';
import { Badge, Button, EmptyState, formatDate, Table, td, th } from '../../_components/ui';
import { ListView } from '../../_components/list-view';
import { SearchForm } from '../../_components/search-form';

type Row = RouterOutputs['admin']['listTemplates']['templates'][number];
const LIMIT = 20;

export function TemplatesTable() {
  const utils = trpc.useUtils();
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const list = trpc.admin.listTemplates.useQuery({ search: query || undefined, page, limit: LIMIT }, { placeholderData: (prev) => prev });
  const del = trpc.admin.deleteTemplate.useMutation({
    onSuccess: async (d) => {
      toast.success(`Template ${d.deleted.slug} deleted`);
      setDeleting(null);
      await utils.admin.listTemplates.invalidate();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });

  return (
    <div className="space-y-3">
      <SearchForm
        id="tpl-search"
        label="Search templates"
        placeholder="Search name or description"
        onSearch={(q) => {
          setQuery(q);
          setPage(1);
        }}
      />
      <ListView
        query={list}
        items={(data) => data.templates}
        loadingRows={6}
        errorTitle="Templates could not be loaded"
        empty={
          <EmptyState title={query ? `No template matches “${query}”` : 'No templates yet'}>
            <Link href="/admin/templates/new" className="font-medium text-blue-700 underline">Create a template</Link>
          </EmptyState>
        }
        onPage={setPage}
      >
        {(templates) => (
          <Table caption="Templates">
            <thead>
              <tr>
                <th scope="col" className={th}>Name</th>
                <th scope="col" className={th}>Category</th>
                <th scope="col" className={th}>Version</th>
                <th scope="col" className={th}>Visibility</th>
                <th scope="col" className={th}>Updated</th>
                <th scope="col" className={th}><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {templates.map((t) => (
                <tr key={t.id}>
                  <td className={td}>
                    <Link href={`/admin/templates/${t.id}`} className="font-medium text-blue-700 underline-offset-2 hover:underline">{t.name}</Link>
                    <span className="block font-mono text-xs text-zinc-600">{t.slug}</span>
                  </td>
                  <td className={td}>{t.category_name}</td>
                  <td className={td}>{t.version || '—'}</td>
                  <td className={td}>
                    <span className="flex flex-wrap gap-1">
                      {t.is_public ? <Badge tone="green">public</Badge> : <Badge tone="violet">not public</Badge>}
                      {t.is_featured ? <Badge tone="amber">featured</Badge> : null}
                    </span>
                  </td>
                  <td className={`${td} whitespace-nowrap`}>{formatDate(t.updated_at)}</td>
                  <td className={`${td} text-right whitespace-nowrap`}>
                    <div className="flex justify-end gap-2">
                      <Link href={`/admin/templates/${t.id}`} className="rounded-lg border border-zinc-300 px-2.5 py-1 text-sm font-medium hover:bg-zinc-100" aria-label={`Edit ${t.name}`}>
                        Edit
                      </Link>
                      <Button size="sm" variant="danger" onClick={() => setDeleting(t)} aria-label={`Delete ${t.name}`}>
                        Delete
                      </Button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </ListView>
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && del.mutate({ id: deleting.id })}
        pending={del.isPending}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete template"
      >
        <p>The template disappears from the catalog of every instance at their next sync. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
