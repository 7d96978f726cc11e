import type { Metadata } from 'next';
import { HydrationBoundary } from '@tanstack/react-query';
import { requireUser } from '@/server/auth/session';
import { serverHelpers } from '../_lib/prefetch';
import { ButtonLink, PageHeader } from '../_components/ui';
import { AccountView } from './account-view';

export const metadata: Metadata = { title: 'Account' };
export const dynamic = 'force-dynamic';

export default async function AccountPage() {
  const { user } = await requireUser('/account');
  // Server-rendered first data: the cards' queries are answered here and hydrated into the browser's cache.
  const helpers = await serverHelpers();
  await Promise.all([
    helpers.account.getProfile.prefetch({}),
    helpers.account.getOrganization.prefetch({}),
    helpers.account.listApiTokens.prefetch({}),
    ...(user.orgId ? [helpers.account.listApiKeys.prefetch({})] : []),
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
      <HydrationBoundary state={helpers.dehydrate()}>
        <AccountView />
      </HydrationBoundary>
    </div>
  );
}
