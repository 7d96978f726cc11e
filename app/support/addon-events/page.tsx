import type { Metadata } from 'next';
import { requireUser } from '@/server/auth/session';
import { Notice, PageHeader } from '../../_components/ui';
import { AddonEventsView } from './addon-events-view';

export const metadata: Metadata = { title: 'Addon events' };
export const dynamic = 'force-dynamic';

export default async function AddonEventsPage() {
  const { user, isAdmin } = await requireUser('/support/addon-events');
  return (
    <div>
      <PageHeader
        title="Addon events"
        description="Audit events the addons of your Core instances reported, newest first."
      />
      {isAdmin || user.orgRole === 'admin' ? (
        <AddonEventsView isAdmin={isAdmin} />
      ) : (
        <Notice>Only organization admins and platform admins can browse addon events.</Notice>
      )}
    </div>
  );
}
