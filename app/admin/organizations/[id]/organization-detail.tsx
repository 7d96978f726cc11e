'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../../_lib/errors';
import { trpc, type RouterOutputs } from '../../../_lib/trpc';
import { Badge, Button, Card, ErrorState, Field, formatDate, Loading, PageHeader, Select } from '../../../_components/ui';
import { GrantsPanel } from '../../grants-panel';

type Org = RouterOutputs['dashboard']['adminOrganization']['organization'];

export function OrganizationDetail({ id }: { id: string }) {
  const org = trpc.dashboard.adminOrganization.useQuery({ id });
  if (org.isPending) return <Loading rows={6} />;
  if (org.isError)
    return (
      <ErrorState title="The organization could not be loaded" message={errorMessage(org.error)}>
        <Link href="/admin/organizations" className="mt-2 inline-block font-medium underline">Back to organizations</Link>
      </ErrorState>
    );
  const o = org.data.organization;
  return (
    <div className="space-y-4">
      <p className="text-sm">
        <Link href="/admin/organizations" className="text-blue-700 underline">← Organizations</Link>
      </p>
      <PageHeader title={o.name} description={`${o.slug} · created ${formatDate(o.created_at)}`} actions={<Badge tone={o.status === 'active' ? 'green' : 'red'}>{o.status}</Badge>} />
      <StatusTier key={`${o.status}-${o.tier}`} org={o} />
      <GrantsPanel orgId={o.id} orgName={o.name} />
    </div>
  );
}

function StatusTier({ org }: { org: Org }) {
  const utils = trpc.useUtils();
  const [status, setStatus] = useState(org.status);
  const [tier, setTier] = useState(org.tier);
  const update = trpc.admin.updateOrganization.useMutation({
    onSuccess: async (d) => {
      toast.success(`${d.organization.name}: ${d.organization.status}, ${d.organization.tier}`);
      await utils.dashboard.adminOrganization.invalidate({ id: org.id });
      await utils.admin.listOrganizations.invalidate();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });
  return (
    <Card title="Status and tier" description="A suspended organization's instance keys and tokens are refused until it is active again.">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          update.mutate({ id: org.id, status, tier });
        }}
      >
        <Field id="org-status" label="Status">
          <Select id="org-status" value={status} onChange={(e) => setStatus(e.target.value as Org['status'])} className="w-40">
            <option value="active">active</option>
            <option value="suspended">suspended</option>
          </Select>
        </Field>
        <Field id="org-tier" label="Tier">
          <Select id="org-tier" value={tier} onChange={(e) => setTier(e.target.value as Org['tier'])} className="w-40">
            <option value="free">free</option>
            <option value="pro">pro</option>
            <option value="enterprise">enterprise</option>
          </Select>
        </Field>
        <Button type="submit" disabled={update.isPending || (status === org.status && tier === org.tier)}>
          {update.isPending ? 'Saving…' : 'Save'}
        </Button>
      </form>
    </Card>
  );
}
