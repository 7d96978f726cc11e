'use client';
/** The admin list's URL state: the current query string, and navigation that changes it (Back restores it). */
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { listHref, type RawParams } from './list-params';

export function useListUrl() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const raw: RawParams = Object.fromEntries(params.entries());
  return {
    raw,
    /** The query string as it is now ("" or "?…"), e.g. to come back to this list after an edit. */
    query: params.toString(),
    /** A new history entry with `changes` applied; any change but the page goes back to page 1. */
    go(changes: Record<string, string | number | undefined>) {
      const next = 'page' in changes ? changes : { ...changes, page: undefined };
      router.push(listHref(pathname, params, next), { scroll: false });
    },
  };
}
