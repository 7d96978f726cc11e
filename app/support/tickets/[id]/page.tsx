import type { Metadata } from 'next';
import { requireUser } from '@/server/auth/session';
import { TicketDetail } from './ticket-detail';

export const metadata: Metadata = { title: 'Support ticket' };
export const dynamic = 'force-dynamic';

export default async function TicketPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { isAdmin } = await requireUser(`/support/tickets/${id}`);
  return <TicketDetail id={id} isAdmin={isAdmin} />;
}
