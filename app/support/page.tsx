import type { Metadata } from 'next';
import { requireUser } from '@/server/auth/session';
import { Notice, PageHeader } from '../_components/ui';
import { TicketsView } from './tickets-view';

export const metadata: Metadata = { title: 'Support tickets' };
export const dynamic = 'force-dynamic';

export default async function SupportTicketsPage() {
  const { user, isAdmin } = await requireUser('/support');
  return (
    <div>
      <PageHeader
        title="Support tickets"
        description={
          isAdmin
            ? 'Every organization’s tickets, opened by their Core instances.'
            : 'Tickets your organization’s Core instances opened.'
        }
      />
      {!isAdmin && !user.orgId ? (
        <Notice>You do not belong to an organization yet, so there are no tickets to show.</Notice>
      ) : (
        <TicketsView isAdmin={isAdmin} />
      )}
    </div>
  );
}
