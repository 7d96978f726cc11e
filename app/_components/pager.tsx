'use client';
/**
 * Previous/next paging of the dashboard's lists. With `onPage` it renders buttons (state held by the caller); with
 * `hrefFor` it renders links, for lists whose page lives in the URL (the catalog), so paging is a navigation Back
 * returns from. A page past the last one says so and offers the last page instead of looking like an empty list.
 */
import Link from 'next/link';
import type { ReactNode } from 'react';
import { Button, buttonClass } from './ui';

interface Pagination {
  page: number;
  totalPages: number;
  total: number;
}

type Target =
  { onPage: (page: number) => void; hrefFor?: undefined } | { hrefFor: (page: number) => string; onPage?: undefined };

export function Pager({ pagination, ...target }: { pagination: Pagination } & Target) {
  const go = (page: number, label: ReactNode, disabled: boolean) =>
    target.hrefFor ? (
      disabled ? (
        <span aria-hidden="true" />
      ) : (
        <Link className={buttonClass('secondary', 'sm')} href={target.hrefFor(page)}>
          {label}
        </Link>
      )
    ) : (
      <Button variant="secondary" size="sm" disabled={disabled} onClick={() => target.onPage(page)}>
        {label}
      </Button>
    );

  if (pagination.total > 0 && pagination.page > pagination.totalPages) {
    const last = pagination.totalPages;
    return (
      <PastTheEnd page={pagination.page} last={last}>
        {target.hrefFor ? (
          <Link className="font-medium text-blue-700 underline" href={target.hrefFor(last)}>
            go to page {last}
          </Link>
        ) : (
          <button type="button" className="font-medium text-blue-700 underline" onClick={() => target.onPage(last)}>
            go to page {last}
          </button>
        )}
      </PastTheEnd>
    );
  }
  if (pagination.totalPages <= 1) return <p className="text-sm text-zinc-600">{pagination.total} in total</p>;
  return (
    <nav aria-label="Pagination" className="flex items-center justify-between gap-2">
      {go(pagination.page - 1, '← Previous', pagination.page <= 1)}
      <span className="text-center text-sm text-zinc-700">
        Page {pagination.page} of {pagination.totalPages} · {pagination.total} in total
      </span>
      {go(pagination.page + 1, 'Next →', pagination.page >= pagination.totalPages)}
    </nav>
  );
}

/** "Page 99 is past the end — go to page 2" (the link or button is the children). */
export function PastTheEnd({ page, last, children }: { page: number; last: number; children: ReactNode }) {
  return (
    <div role="status" className="rounded-xl border border-dashed border-zinc-300 bg-white px-4 py-10 text-center">
      <p className="font-medium text-zinc-900">
        Page {page} is past the end — {children}
      </p>
      <p className="mt-1 text-sm text-zinc-600">
        The list has {last} page{last === 1 ? '' : 's'}.
      </p>
    </div>
  );
}
