import type { Metadata } from 'next';
import { requireUser } from '@/server/auth/session';
import { ButtonLink, PageHeader } from '../_components/ui';
import { AccountView } from './account-view';

export const metadata: Metadata = { title: 'Account' };
export const dynamic = 'force-dynamic';

export default async function AccountPage() {
  const { user } = await requireUser('/account');
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
      <AccountView />
    </div>
  );
}
