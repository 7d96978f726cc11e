'use client';
/** Small pieces shared by the support pages. */
import { Badge, Select } from '../_components/ui';
import { trpc } from '../_lib/trpc';

export function StatusBadge({ status }: { status: 'open' | 'pending' | 'closed' }) {
  return <Badge tone={status === 'open' ? 'blue' : status === 'pending' ? 'amber' : 'neutral'}>{status}</Badge>;
}

export function SeverityBadge({ severity }: { severity: 'low' | 'normal' | 'high' | 'urgent' }) {
  return (
    <Badge
      tone={severity === 'urgent' ? 'red' : severity === 'high' ? 'amber' : severity === 'low' ? 'neutral' : 'green'}
    >
      {severity}
    </Badge>
  );
}

export function PublishBadge({ state }: { state: 'published' | 'pending' | 'failed' | 'local' }) {
  const label = { published: 'published', pending: 'publish pending', failed: 'publish failed', local: 'Hub only' }[
    state
  ];
  return (
    <Badge
      tone={state === 'published' ? 'green' : state === 'pending' ? 'amber' : state === 'failed' ? 'red' : 'neutral'}
    >
      {label}
    </Badge>
  );
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
