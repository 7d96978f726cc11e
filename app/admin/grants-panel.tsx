'use client';
/** Access grants of one private category, or of one organization: list, grant, revoke (the spec wants both pages). */
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../_lib/errors';
import { trpc, type RouterOutputs } from '../_lib/trpc';
import { ConfirmDialog } from '../_components/dialog';
import { Button, Card, EmptyState, ErrorState, Field, Input, Loading, Select } from '../_components/ui';
import { Cell, ListTable, Row } from '../_components/list-view';
import { RelativeTime } from '../_components/relative-time';

type Grant = RouterOutputs['admin']['listGrants']['grants'][number];

export function GrantsPanel(props: { categoryId: string; isPrivate: boolean } | { orgId: string; orgName: string }) {
  const byCategory = 'categoryId' in props;
  const utils = trpc.useUtils();
  const grants = trpc.admin.listGrants.useQuery(
    byCategory ? { category_id: props.categoryId } : { org_id: props.orgId },
  );
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const refresh = async () => {
    await utils.admin.listGrants.invalidate();
    await utils.admin.listCategories.invalidate();
  };
  const create = trpc.admin.createGrant.useMutation({
    onSuccess: async (d) => {
      toast.success(`${d.grant.org_name} can now see ${d.grant.category_name}`);
      await refresh();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });
  const remove = trpc.admin.deleteGrant.useMutation({
    onSuccess: async () => {
      toast.success(`Access revoked`);
      setRevoking(null);
      await refresh();
    },
  });

  return (
    <Card
      title={byCategory ? 'Organizations with access' : 'Private categories this organization can see'}
      description={
        byCategory
          ? props.isPrivate
            ? 'Only these organizations (and platform admins) see the templates of this private category.'
            : 'This category is public: grants take effect only while it is private.'
          : 'Public categories are visible to everyone; private ones only with a grant.'
      }
    >
      {byCategory ? (
        <GrantToOrganization
          categoryId={props.categoryId}
          onGrant={(orgId) => create.mutate({ org_id: orgId, category_id: props.categoryId })}
          pending={create.isPending}
        />
      ) : (
        <GrantCategory
          orgId={props.orgId}
          existing={grants.data?.grants ?? []}
          onGrant={(categoryId) => create.mutate({ org_id: props.orgId, category_id: categoryId })}
          pending={create.isPending}
        />
      )}
      <div className="mt-4">
        {grants.isPending ? (
          <Loading rows={2} />
        ) : grants.isError ? (
          <ErrorState message={errorMessage(grants.error)} />
        ) : grants.data.grants.length === 0 ? (
          <EmptyState title={byCategory ? 'No organization has access yet' : 'No private categories granted'} />
        ) : (
          <ListTable
            caption="Access grants"
            columns={[
              { label: byCategory ? 'Organization' : 'Category' },
              { label: 'Granted' },
              { label: 'Actions', hidden: true },
            ]}
          >
            {grants.data.grants.map((g) => (
              <Row key={g.id}>
                <Cell primary>
                  {byCategory ? (
                    <Link
                      href={`/admin/organizations/${g.org_id}`}
                      className="font-medium text-blue-700 underline-offset-2 hover:underline"
                    >
                      {g.org_name}
                    </Link>
                  ) : (
                    <Link
                      href={`/admin/categories/${g.category_id}`}
                      className="font-medium text-blue-700 underline-offset-2 hover:underline"
                    >
                      {g.category_name}
                    </Link>
                  )}
                </Cell>
                <Cell label="Granted" nowrap>
                  <RelativeTime value={g.created_at} />
                </Cell>
                <Cell actions>
                  <Button
                    size="sm"
                    variant="secondary"
                    onClick={() => {
                      remove.reset();
                      setRevoking(g);
                    }}
                    aria-label={`Revoke access of ${g.org_name} to ${g.category_name}`}
                  >
                    Revoke
                  </Button>
                </Cell>
              </Row>
            ))}
          </ListTable>
        )}
      </div>
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && remove.mutate({ id: revoking.id })}
        pending={remove.isPending}
        error={remove.error ? errorMessage(remove.error) : null}
        title={`Revoke the access of ${revoking?.org_name ?? ''} to ${revoking?.category_name ?? ''}?`}
        confirmLabel="Revoke access"
      >
        <p>
          {revoking?.org_name} stops seeing the templates of {revoking?.category_name}; its instances drop them at their
          next sync.
        </p>
      </ConfirmDialog>
    </Card>
  );
}

function GrantToOrganization({
  categoryId,
  onGrant,
  pending,
}: {
  categoryId: string;
  onGrant: (orgId: string) => void;
  pending: boolean;
}) {
  const [search, setSearch] = useState('');
  const orgs = trpc.admin.listOrganizations.useQuery(
    { search: search.trim() || undefined, limit: 20 },
    { placeholderData: (p) => p },
  );
  const [orgId, setOrgId] = useState('');
  return (
    <form
      className="grid grid-cols-1 gap-2 sm:grid-cols-[1fr_1fr_auto] sm:items-end"
      onSubmit={(e) => {
        e.preventDefault();
        if (orgId) onGrant(orgId);
      }}
      data-category={categoryId}
    >
      <Field id="grant-org-search" label="Find organization">
        <Input
          id="grant-org-search"
          type="search"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          placeholder="Name or slug"
        />
      </Field>
      <Field id="grant-org" label="Organization">
        <Select id="grant-org" value={orgId} onChange={(e) => setOrgId(e.target.value)} required>
          <option value="">Choose…</option>
          {orgs.data?.organizations.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name} ({o.slug})
            </option>
          ))}
        </Select>
      </Field>
      <Button type="submit" disabled={!orgId || pending}>
        {pending ? 'Granting…' : 'Grant access'}
      </Button>
    </form>
  );
}

function GrantCategory({
  existing,
  onGrant,
  pending,
}: {
  orgId: string;
  existing: Grant[];
  onGrant: (categoryId: string) => void;
  pending: boolean;
}) {
  const categories = trpc.admin.listCategories.useQuery({});
  const [categoryId, setCategoryId] = useState('');
  const held = new Set(existing.map((g) => g.category_id));
  const choices = (categories.data?.categories ?? []).filter((c) => c.is_private && !held.has(c.id));
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (categoryId) onGrant(categoryId);
        setCategoryId('');
      }}
    >
      <Field id="grant-category" label="Private category" className="min-w-[14rem] flex-1">
        <Select id="grant-category" value={categoryId} onChange={(e) => setCategoryId(e.target.value)} required>
          <option value="">
            {categories.isPending ? 'Loading…' : choices.length ? 'Choose…' : 'No other private category'}
          </option>
          {choices.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </Select>
      </Field>
      <Button type="submit" disabled={!categoryId || pending}>
        {pending ? 'Granting…' : 'Grant access'}
      </Button>
    </form>
  );
}
