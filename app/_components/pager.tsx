'use client';
/** Previous/next paging of the dashboard's lists. */
import { Button } from './ui';

export function Pager({ pagination, onPage }: { pagination: { page: number; totalPages: number; total: number }; onPage: (page: number) => void }) {
  if (pagination.totalPages <= 1) return <p className="text-sm text-zinc-600">{pagination.total} in total</p>;
  return (
    <nav aria-label="Pagination" className="flex items-center justify-between gap-2">
      <Button variant="secondary" size="sm" disabled={pagination.page <= 1} onClick={() => onPage(pagination.page - 1)}>
        ← Previous
      </Button>
      <span className="text-sm text-zinc-700">
        Page {pagination.page} of {pagination.totalPages} · {pagination.total} in total
      </span>
      <Button variant="secondary" size="sm" disabled={pagination.page >= pagination.totalPages} onClick={() => onPage(pagination.page + 1)}>
        Next →
      </Button>
    </nav>
  );
}
