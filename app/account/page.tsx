import type { Metadata } from 'next';
import { requireUser } from '@/server/auth/session';
import { serverTrpc } from '../_lib/server-trpc';
import { ButtonLink, PageHeader } from '../_components/ui';
import { AccountView } from './account-view';
import { fleetInput, type RawParams } from '../admin/list-params';

export const metadata: Metadata = { title: 'Account' };
export const dynamic = 'force-dynamic';

export default async function AccountPage({ searchParams }: { searchParams: Promise<RawParams> }) {
  const { user } = await requireUser('/account');
  // Server-rendered first data: the cards' queries are answered here and hydrated into the browser's cache.
  const { trpc, HydrateClient } = await serverTrpc();
  await Promise.all([
    trpc.account.getProfile.prefetch({}),
    trpc.account.getOrganization.prefetch({}),
    trpc.account.listApiTokens.prefetch({}),
    ...(user.orgId ? [trpc.account.listApiKeys.prefetch({})] : []),
    ...(user.orgId && user.orgRole === 'admin' ? [trpc.account.fleet.prefetch(fleetInput(await searchParams))] : []),
  ]);
  return (
    <div>
      <PageHeader
        title="Account"
        description={`Signed in as ${user.email}`}
        actions={
          <ButtonLink href="/account/tokens" variant="secondary">
            Personal access tokens
          </ButtonLink>
        }
      />
      <HydrateClient>
        <AccountView />
      </HydrateClient>
    </div>
  );
}
