/**
 * Server-side prefetch + hydration for the dashboard's pages (admin, account): the page runs the client component's own tRPC
 * query through the server caller (same session, same procedure, same input), and <HydrateClient> hands the
 * answer to the browser's query cache, so the first rows are in the server HTML and the browser does not
 * fetch them again. A refused or failed prefetch is left out: the client component then asks as before and
 * shows the error.
 */
import { cache } from 'react';
import { QueryClient } from '@tanstack/react-query';
import { createHydrationHelpers } from '@trpc/react-query/rsc';
import { pageCaller } from '@/server/api/pageCaller';
import type { AppRouter } from '@/server/api/root';

/** One query cache per request (React's cache() is per server request). */
const requestQueryClient = cache(() => new QueryClient({ defaultOptions: { queries: { staleTime: 10_000 } } }));

/** The page's prefetching caller, its <HydrateClient>, and the signed-in person. */
export async function serverTrpc() {
  const { caller, session } = await pageCaller();
  return { ...createHydrationHelpers<AppRouter>(caller, requestQueryClient), session };
}
