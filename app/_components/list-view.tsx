'use client';
/** One paged list of the dashboard: loading, error, empty, the table and its pager, in that order. */
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
