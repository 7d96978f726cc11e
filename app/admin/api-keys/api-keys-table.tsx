'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { ConfirmDialog } from '../../_components/dialog';
import { Badge, Button, EmptyState, Field, formatDate, Select, Table, td, th } from '../../_components/ui';
import { ListView } from '../../_components/list-view';

type Key = RouterOutputs['admin']['listApiKeys']['apiKeys'][number];

export function ApiKeysTable() {
  const utils = trpc.useUtils();
  const [status, setStatus] = useState<'' | 'active' | 'revoked'>('active');
  const [page, setPage] = useState(1);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const list = trpc.admin.listApiKeys.useQuery({ status: status || undefined, page, limit: 25 }, { placeholderData: (p) => p });
  const revoke = trpc.admin.revokeApiKey.useMutation({
    onSuccess: async () => {
      toast.success(`Key ${revoking?.name ?? ''} of ${revoking?.org_name ?? ''} revoked`);
      setRevoking(null);
      await utils.admin.listApiKeys.invalidate();
      await utils.admin.stats.invalidate();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });
  return (
    <div className="space-y-3">
      <Field id="key-status" label="Show" className="max-w-[12rem]">
        <Select
          id="key-status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as typeof status);
            setPage(1);
          }}
        >
          <option value="active">Active keys</option>
          <option value="revoked">Revoked keys</option>
          <option value="">All keys</option>
        </Select>
      </Field>
      <ListView
        query={list}
        items={(data) => data.apiKeys}
        loadingRows={5}
        errorTitle="Keys could not be loaded"
        empty={<EmptyState title="No keys here" />}
        onPage={setPage}
      >
        {(apiKeys) => (
          <Table caption="API keys">
            <thead>
              <tr>
                <th scope="col" className={th}>Key</th>
                <th scope="col" className={th}>Organization</th>
                <th scope="col" className={th}>Status</th>
                <th scope="col" className={th}>Created</th>
                <th scope="col" className={th}>Last used</th>
                <th scope="col" className={th}><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {apiKeys.map((k) => (
                <tr key={k.id}>
                  <td className={td}>
                    <span className="font-medium">{k.name}</span>
                    <span className="block font-mono text-xs text-zinc-600">{k.key_prefix}…</span>
                  </td>
                  <td className={td}>
                    <Link href={`/admin/organizations/${k.org_id}`} className="text-blue-700 underline-offset-2 hover:underline">{k.org_name}</Link>
                  </td>
                  <td className={td}><Badge tone={k.status === 'active' ? 'green' : 'red'}>{k.status}</Badge></td>
                  <td className={`${td} whitespace-nowrap`}>{formatDate(k.created_at)}</td>
                  <td className={`${td} whitespace-nowrap`}>{k.last_used_at ? formatDate(k.last_used_at) : 'never'}</td>
                  <td className={`${td} text-right`}>
                    {k.status === 'active' ? (
                      <Button size="sm" variant="danger" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name} of ${k.org_name}`}>
                        Revoke
                      </Button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </ListView>
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        pending={revoke.isPending}
        title={`Revoke ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke key"
      >
        <p>The instance using this key of {revoking?.org_name} is refused from its next request. Its organization admins can re-issue it.</p>
      </ConfirmDialog>
    </div>
  );
}
