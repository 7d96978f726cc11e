'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { ConfirmDialog } from '../../_components/dialog';
import { Badge, Button, EmptyState, Field, Select } from '../../_components/ui';
import { Cell, ListTable, ListView, Row } from '../../_components/list-view';
import { apiKeysInput } from '../list-params';
import { useListUrl } from '../use-list-url';
import { RelativeTime } from '../../_components/relative-time';

type Key = RouterOutputs['admin']['listApiKeys']['apiKeys'][number];

export function ApiKeysTable() {
  const utils = trpc.useUtils();
  const url = useListUrl();
  const input = apiKeysInput(url.raw);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const list = trpc.admin.listApiKeys.useQuery(input, { placeholderData: (p) => p });
  const revoke = trpc.admin.revokeApiKey.useMutation({
    onSuccess: async () => {
      toast.success(`Key ${revoking?.name ?? ''} of ${revoking?.org_name ?? ''} revoked`);
      setRevoking(null);
      await utils.admin.listApiKeys.invalidate();
      await utils.admin.stats.invalidate();
    },
  });
  return (
    <div className="space-y-3">
      <Field id="key-status" label="Show" className="max-w-[12rem]">
        <Select
          id="key-status"
          value={input.status ?? 'all'}
          onChange={(e) => url.go({ status: e.target.value === 'active' ? undefined : e.target.value })}
        >
          <option value="active">Active keys</option>
          <option value="revoked">Revoked keys</option>
          <option value="all">All keys</option>
        </Select>
      </Field>
      <ListView
        query={list}
        items={(data) => data.apiKeys}
        loadingRows={5}
        errorTitle="Keys could not be loaded"
        empty={<EmptyState title="No keys here" />}
        onPage={(page) => url.go({ page })}
      >
        {(apiKeys) => (
          <ListTable
            caption="Instance keys"
            columns={[
              { label: 'Key' },
              { label: 'Organization' },
              { label: 'Status' },
              { label: 'Created' },
              { label: 'Last used' },
              { label: 'Actions', hidden: true },
            ]}
          >
            {apiKeys.map((k) => (
              <Row key={k.id}>
                <Cell primary>
                  <span className="font-medium break-all">{k.name}</span>
                  <span className="block font-mono text-xs text-zinc-600">{k.key_prefix}…</span>
                </Cell>
                <Cell label="Organization">
                  <Link
                    href={`/admin/organizations/${k.org_id}`}
                    className="text-blue-700 underline-offset-2 hover:underline"
                  >
                    {k.org_name}
                  </Link>
                </Cell>
                <Cell label="Status">
                  <Badge tone={k.status === 'active' ? 'green' : 'red'}>{k.status}</Badge>
                </Cell>
                <Cell label="Created" nowrap>
                  <RelativeTime value={k.created_at} />
                </Cell>
                <Cell label="Last used" nowrap>
                  {k.last_used_at ? <RelativeTime value={k.last_used_at} /> : 'never'}
                </Cell>
                <Cell actions>
                  {/* A revoked key cannot be revoked again (nor re-issued by an admin): nothing is offered. */}
                  {k.status === 'active' ? (
                    <Button
                      size="sm"
                      variant="danger"
                      onClick={() => {
                        revoke.reset();
                        setRevoking(k);
                      }}
                      aria-label={`Revoke ${k.name} of ${k.org_name}`}
                    >
                      Revoke
                    </Button>
                  ) : null}
                </Cell>
              </Row>
            ))}
          </ListTable>
        )}
      </ListView>
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        pending={revoke.isPending}
        error={revoke.error ? errorMessage(revoke.error) : null}
        title={`Revoke ${revoking?.name ?? ''} of ${revoking?.org_name ?? ''}?`}
        confirmLabel="Revoke key"
      >
        <p>
          The instance using this key of {revoking?.org_name} is refused from its next request. Its organization admins
          can re-issue it.
        </p>
      </ConfirmDialog>
    </div>
  );
}
