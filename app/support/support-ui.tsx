'use client';
/** Small pieces shared by the support pages. */
import { Badge, Button, Select } from '../_components/ui';
import { trpc } from '../_lib/trpc';

export function Pagination({ pagination, onPage }: { pagination: { page: number; totalPages: number; total: number }; onPage: (page: number) => void }) {
  if (pagination.totalPages <= 1) return <p className="text-sm text-zinc-600">{pagination.total} in total</p>;
  return (
    <nav aria-label="Pagination" className="flex items-center justify-between gap-2">
      <Button variant="secondary" size="sm" disabled={pagination.page <= 1} onClick={() => onPage(pagination.page - 1)}>
        ← Previous
      </Button>
      <span className="text-sm text-zinc-700">
        Page {pagination.page} of {pagination.totalPages} · {pagination.total} in total
      </span>
      <Button variant="secondary" size="sm" disabled={pagination.page >= pagination.totalPages} onClick={() => onPage(pagination.page + 1)}>
        Next →
      </Button>
    </nav>
  );
}

export function StatusBadge({ status }: { status: 'open' | 'pending' | 'closed' }) {
  return <Badge tone={status === 'open' ? 'blue' : status === 'pending' ? 'amber' : 'neutral'}>{status}</Badge>;
}

export function SeverityBadge({ severity }: { severity: 'low' | 'normal' | 'high' | 'urgent' }) {
  return <Badge tone={severity === 'urgent' ? 'red' : severity === 'high' ? 'amber' : severity === 'low' ? 'neutral' : 'green'}>{severity}</Badge>;
}

export function PublishBadge({ state }: { state: 'published' | 'pending' | 'failed' | 'local' }) {
  const label = { published: 'published', pending: 'publish pending', failed: 'publish failed', local: 'Hub only' }[state];
  return <Badge tone={state === 'published' ? 'green' : state === 'pending' ? 'amber' : state === 'failed' ? 'red' : 'neutral'}>{label}</Badge>;
}

/** Organization filter for platform admins (the procedures ignore it for everyone else). */
export function OrgSelect({ id, value, onChange }: { id: string; value: string; onChange: (value: string) => void }) {
  const orgs = trpc.admin.listOrganizations.useQuery({ limit: 100 });
  return (
    <Select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">All organizations</option>
      {(orgs.data?.organizations ?? []).map((o) => (
        <option key={o.id} value={o.id}>
          {o.name} ({o.slug})
        </option>
      ))}
    </Select>
  );
}
