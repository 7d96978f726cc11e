'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../../_lib/errors';
import { trpc, type RouterOutputs } from '../../../_lib/trpc';
import { ConfirmDialog } from '../../../_components/dialog';
import {
  Badge,
  Button,
  Card,
  ErrorState,
  Field,
  formatDate,
  Loading,
  PageHeader,
  Select,
} from '../../../_components/ui';
import { GrantsPanel } from '../../grants-panel';

type Org = RouterOutputs['dashboard']['adminOrganization']['organization'];

export function OrganizationDetail({ id }: { id: string }) {
  const org = trpc.dashboard.adminOrganization.useQuery({ id });
  if (org.isPending) return <Loading rows={6} />;
  if (org.isError)
    return (
      <ErrorState title="The organization could not be loaded" message={errorMessage(org.error)}>
        <Link href="/admin/organizations" className="mt-2 inline-block font-medium underline">
          Back to organizations
        </Link>
      </ErrorState>
    );
  const o = org.data.organization;
  return (
    <div className="space-y-4">
      <p className="text-sm">
        <Link href="/admin/organizations" className="text-blue-700 underline">
          ← Organizations
        </Link>
      </p>
      <PageHeader
        title={o.name}
        description={`${o.slug} · created ${formatDate(o.created_at)}`}
        actions={<Badge tone={o.status === 'active' ? 'green' : 'red'}>{o.status}</Badge>}
      />
      <StatusTier key={`${o.status}-${o.tier}`} org={o} />
      <GrantsPanel orgId={o.id} orgName={o.name} />
    </div>
  );
}

/** What applying `status`/`tier` to `org` does, as the confirmation states it. */
function describeChange(org: Org, status: Org['status'], tier: Org['tier']) {
  const parts: string[] = [];
  const effects: string[] = [];
  if (status !== org.status) {
    parts.push(status === 'suspended' ? `Suspend ${org.name}` : `Reactivate ${org.name}`);
    effects.push(
      status === 'suspended'
        ? 'Its instance keys and its members’ tokens stop working at once: every request with them is refused until it is active again.'
        : 'Its instance keys and its members’ tokens work again from their next request.',
    );
  }
  if (tier !== org.tier) {
    parts.push(parts.length ? `move it to the ${tier} tier` : `Move ${org.name} to the ${tier} tier`);
    effects.push(`Its tier changes from ${org.tier} to ${tier}.`);
  }
  return {
    title: `${parts.join(' and ')}?`,
    effects,
    destructive: status === 'suspended' && org.status !== 'suspended',
  };
}

/** Status and tier are staged in the selects; Apply opens a confirmation that states the change, and only its button saves. */
function StatusTier({ org }: { org: Org }) {
  const utils = trpc.useUtils();
  const [status, setStatus] = useState(org.status);
  const [tier, setTier] = useState(org.tier);
  const [confirming, setConfirming] = useState(false);
  const update = trpc.admin.updateOrganization.useMutation({
    onSuccess: async (d) => {
      toast.success(`${d.organization.name}: ${d.organization.status}, ${d.organization.tier}`);
      setConfirming(false);
      await utils.dashboard.adminOrganization.invalidate({ id: org.id });
      await utils.admin.listOrganizations.invalidate();
    },
  });
  const change = describeChange(org, status, tier);
  const unchanged = status === org.status && tier === org.tier;
  return (
    <Card
      title="Status and tier"
      description="A suspended organization's instance keys and tokens are refused until it is active again."
    >
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (unchanged) return;
          update.reset();
          setConfirming(true);
        }}
      >
        <Field id="org-status" label="Status">
          <Select
            id="org-status"
            value={status}
            onChange={(e) => setStatus(e.target.value as Org['status'])}
            className="w-40"
          >
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
        <Button type="submit" disabled={unchanged}>
          Apply
        </Button>
        {!unchanged ? (
          <Button
            variant="ghost"
            onClick={() => {
              setStatus(org.status);
              setTier(org.tier);
            }}
          >
            Reset
          </Button>
        ) : null}
      </form>
      <ConfirmDialog
        open={confirming}
        onClose={() => setConfirming(false)}
        onConfirm={() => update.mutate({ id: org.id, status, tier })}
        pending={update.isPending}
        error={update.error ? errorMessage(update.error) : null}
        variant={change.destructive ? 'danger' : 'primary'}
        title={change.title}
        confirmLabel={change.destructive ? 'Suspend organization' : 'Apply change'}
      >
        {change.effects.map((e) => (
          <p key={e}>{e}</p>
        ))}
      </ConfirmDialog>
    </Card>
  );
}
