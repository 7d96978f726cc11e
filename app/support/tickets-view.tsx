'use client';
import Link from 'next/link';
import { useState } from 'react';
import { EmptyState, Field, Select } from '../_components/ui';
import { trpc } from '../_lib/trpc';
import { OrgSelect, SeverityBadge, StatusBadge } from './support-ui';
import { Cell, ListTable, ListView, Row } from '../_components/list-view';
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
  const reset =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
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
          <Select
            id="ticket-severity"
            value={severity}
            onChange={(e) => reset(setSeverity)(e.target.value as Severity | '')}
          >
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
        empty={
          <EmptyState title="No tickets">Core instances open tickets through POST /api/v1/support/tickets.</EmptyState>
        }
        onPage={setPage}
      >
        {(tickets) => (
          <ListTable
            caption="Support tickets"
            columns={[
              { label: '#' },
              { label: 'Subject' },
              { label: 'Status' },
              { label: 'Severity' },
              ...(isAdmin ? [{ label: 'Organization' }] : []),
              { label: 'Instance' },
              { label: 'Messages' },
              { label: 'Updated' },
            ]}
          >
            {tickets.map((t) => (
              <Row key={t.id}>
                <Cell label="#">{t.number}</Cell>
                <Cell label="Subject" className="break-words">
                  <Link href={`/support/tickets/${t.id}`} className="font-medium text-blue-700 underline">
                    {t.subject}
                  </Link>
                </Cell>
                <Cell label="Status">
                  <StatusBadge status={t.status} />
                </Cell>
                <Cell label="Severity">
                  <SeverityBadge severity={t.severity} />
                </Cell>
                {isAdmin ? <Cell label="Organization">{t.organization.name}</Cell> : null}
                <Cell label="Instance">{t.instance?.name ?? '—'}</Cell>
                <Cell label="Messages">{t.message_count}</Cell>
                <Cell label="Updated" nowrap>
                  <RelativeTime value={t.updated_at} />
                </Cell>
              </Row>
            ))}
          </ListTable>
        )}
      </ListView>
    </div>
  );
}
