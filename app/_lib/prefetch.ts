/**
 * Server-rendered first data for dashboard pages built from client components: the page prefetches the
 * procedures its components query (as the signed-in person, through the same resolver and procedures as
 * /api/trpc), and <HydrationBoundary state={helpers.dehydrate()}> hands the answers to the browser's query
 * cache, so the server HTML already has the rows and the browser does not ask again on load.
 * Failed prefetches are left out: the component then shows its error or asks again, as before.
 */
import { createServerSideHelpers } from '@trpc/react-query/server';
import { pageCredential } from '@/server/auth/session';
import { appRouter } from '@/server/api/root';
import { contextFor } from '@/server/api/trpc';

export async function serverHelpers() {
  const { principal, headers } = await pageCredential();
  return createServerSideHelpers({ router: appRouter, ctx: contextFor(principal, headers) });
}
