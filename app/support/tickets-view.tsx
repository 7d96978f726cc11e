'use client';
import Link from 'next/link';
import { useState } from 'react';
import { StackedTable } from '../_components/stacked-table';
import { EmptyState, Field, Select, td, th } from '../_components/ui';
import { trpc } from '../_lib/trpc';
import { OrgSelect, SeverityBadge, StatusBadge } from './support-ui';
import { ListView } from '../_components/list-view';
import { RelativeTime } from '../_components/relative-time';

const LIMIT = 25;
type Status = 'open' | 'pending' | 'closed';
type Severity = 'low' | 'normal' | 'high' | 'urgent';

export function TicketsView({ isAdmin }: { isAdmin: boolean }) {
  const [status, setStatus] = useState<Status | ''>('');
  const [severity, setSeverity] = useState<Severity | ''>('');
  const [orgId, setOrgId] = useState('');
  const [page, setPage] = useState(1);
  const list = trpc.support.dashboardListTickets.useQuery(
    { status: status || undefined, severity: severity || undefined, org_id: orgId || undefined, page, limit: LIMIT },
    { placeholderData: (prev) => prev },
  );
  const reset = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPage(1);
  };

  return (
    <div className="space-y-4">
      <div className="grid gap-3 sm:grid-cols-3">
        <Field id="ticket-status" label="Status">
          <Select id="ticket-status" value={status} onChange={(e) => reset(setStatus)(e.target.value as Status | '')}>
            <option value="">Any status</option>
            <option value="open">Open</option>
            <option value="pending">Pending</option>
            <option value="closed">Closed</option>
          </Select>
        </Field>
        <Field id="ticket-severity" label="Severity">
          <Select id="ticket-severity" value={severity} onChange={(e) => reset(setSeverity)(e.target.value as Severity | '')}>
            <option value="">Any severity</option>
            <option value="urgent">Urgent</option>
            <option value="high">High</option>
            <option value="normal">Normal</option>
            <option value="low">Low</option>
          </Select>
        </Field>
        {isAdmin ? (
          <Field id="ticket-org" label="Organization">
            <OrgSelect id="ticket-org" value={orgId} onChange={reset(setOrgId)} />
          </Field>
        ) : null}
      </div>
      <ListView
        query={list}
        items={(data) => data.tickets}
        loadingRows={6}
        errorTitle="Tickets could not be loaded"
        empty={<EmptyState title="No tickets">Core instances open tickets through POST /api/v1/support/tickets.</EmptyState>}
        onPage={setPage}
      >
        {(tickets) => (
          <StackedTable caption="Support tickets">
            <thead>
              <tr>
                <th scope="col" className={th}>#</th>
                <th scope="col" className={th}>Subject</th>
                <th scope="col" className={th}>Status</th>
                <th scope="col" className={th}>Severity</th>
                {isAdmin ? <th scope="col" className={th}>Organization</th> : null}
                <th scope="col" className={th}>Instance</th>
                <th scope="col" className={th}>Messages</th>
                <th scope="col" className={th}>Updated</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {tickets.map((t) => (
                <tr key={t.id}>
                  <td data-label="#" className={td}>{t.number}</td>
                  <td data-label="Subject" className={`${td} break-words`}>
                    <Link href={`/support/tickets/${t.id}`} className="font-medium text-blue-700 underline">
                      {t.subject}
                    </Link>
                  </td>
                  <td data-label="Status" className={td}><StatusBadge status={t.status} /></td>
                  <td data-label="Severity" className={td}><SeverityBadge severity={t.severity} /></td>
                  {isAdmin ? <td data-label="Organization" className={td}>{t.organization.name}</td> : null}
                  <td data-label="Instance" className={td}>{t.instance?.name ?? '—'}</td>
                  <td data-label="Messages" className={td}>{t.message_count}</td>
                  <td data-label="Updated" className={`${td} whitespace-nowrap`}><RelativeTime value={t.updated_at} /></td>
                </tr>
              ))}
            </tbody>
          </StackedTable>
        )}
      </ListView>
    </div>
  );
}
