'use client';
/** One paged list of the dashboard: loading, error, empty, the table and its pager, in that order. */
import { DataTable, type Column } from '@shared/charts/table';
import type { ReactNode } from 'react';
import { errorMessage } from '../_lib/errors';
import { Pager } from './pager';
import { ErrorState, Loading } from './ui';

interface Pagination {
  page: number;
  totalPages: number;
  total: number;
}

export function ListView<D extends { pagination: Pagination }, T>({
  query,
  items,
  loadingRows = 5,
  errorTitle,
  empty,
  onPage,
  children,
}: {
  /** The list's query (tRPC / react-query). */
  query: { isPending: boolean; isError: boolean; error: unknown; data: D | undefined };
  items: (data: D) => T[];
  loadingRows?: number;
  errorTitle: string;
  /** Shown when the page has no rows (an EmptyState). */
  empty: ReactNode;
  onPage: (page: number) => void;
  /** The table of the page's rows. */
  children: (rows: T[], data: D) => ReactNode;
}) {
  if (query.isPending) return <Loading rows={loadingRows} />;
  if (query.isError || !query.data) return <ErrorState title={errorTitle} message={errorMessage(query.error)} />;
  const rows = items(query.data);
  if (rows.length === 0) return <>{empty}</>;
  return (
    <>
      {children(rows, query.data)}
      <Pager pagination={query.data.pagination} onPage={onPage} />
    </>
  );
}

/**
 * A list's table that becomes a stack of cards below the sm breakpoint (one DOM, so the same rows, cells and
 * buttons at every width): each cell shows its column name before its value, actions wrap inside the card, and
 * nothing scrolls sideways on a phone. From sm up it is an ordinary table (scrollable if it must).
 */
export function ListTable({ caption, columns, children }: { caption: string; columns: Column[]; children: ReactNode }) {
  return (
    <DataTable
      caption={caption}
      columns={columns}
      scroll
      classes={{
        region: 'relative sm:overflow-x-auto',
        table: 'block w-full text-sm sm:table sm:min-w-full sm:divide-y sm:divide-zinc-200',
        thead: 'max-sm:sr-only',
        th: 'px-3 py-2 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-zinc-700 uppercase',
        tbody: 'block space-y-3 sm:table-row-group sm:space-y-0 sm:divide-y sm:divide-zinc-100 sm:bg-white',
      }}
    >
      {children}
    </DataTable>
  );
}

export function Row({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <tr
      data-testid={testId}
      className="block rounded-xl border border-zinc-200 bg-white p-3 shadow-sm sm:table-row sm:rounded-none sm:border-0 sm:p-0 sm:shadow-none"
    >
      {children}
    </tr>
  );
}

/**
 * One cell. `label` is shown before the value on phones (the column header is not visible there); `primary`
 * cells (the row's name) and `actions` cells show no label. Actions sit at the end of a desktop row and wrap
 * inside the card on a phone.
 */
export function Cell({
  label,
  primary,
  actions,
  nowrap,
  className,
  title,
  children,
}: {
  label?: string;
  primary?: boolean;
  actions?: boolean;
  nowrap?: boolean;
  /** Extra classes for the cell's content (e.g. font-mono, break-all). */
  className?: string;
  title?: string;
  children: ReactNode;
}) {
  const labelled = label && !primary && !actions;
  return (
    <td
      data-label={labelled ? label : undefined}
      title={title}
      className={[
        'block px-0 py-1 align-top text-zinc-800 sm:table-cell sm:px-3 sm:py-2',
        labelled
          ? 'max-sm:before:mr-2 max-sm:before:text-xs max-sm:before:font-semibold max-sm:before:tracking-wide ' +
            'max-sm:before:text-zinc-600 max-sm:before:uppercase max-sm:before:content-[attr(data-label)]'
          : '',
        actions ? 'max-sm:pt-2 sm:text-right' : '',
        nowrap ? 'sm:whitespace-nowrap' : '',
        className ?? '',
      ].join(' ')}
    >
      {actions ? <div className="flex flex-wrap items-center gap-2 sm:justify-end">{children}</div> : children}
    </td>
  );
}
