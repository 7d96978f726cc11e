'use client';
import { useState } from 'react';
import { trpc } from '../../_lib/trpc';
import { Button, EmptyState, Field, formatDate, Input, Select, Table, td, th } from '../../_components/ui';
import { ListView } from '../../_components/list-view';

const TARGETS = ['', 'api_key', 'user', 'organization', 'member', 'template', 'category', 'access_grant', 'personal_access_token'];

export function AuditTable() {
  const [action, setAction] = useState('');
  const [targetType, setTargetType] = useState('');
  const [filters, setFilters] = useState<{ action?: string; target_type?: string }>({});
  const [page, setPage] = useState(1);
  const list = trpc.admin.auditLog.useQuery({ ...filters, page, limit: 30 }, { placeholderData: (p) => p });
  return (
    <div className="space-y-3">
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ action: action.trim() || undefined, target_type: targetType || undefined });
          setPage(1);
        }}
      >
        <Field id="audit-action" label="Action" className="w-56">
          <Input id="audit-action" value={action} onChange={(e) => setAction(e.target.value)} placeholder="e.g. api_key.revoke" />
        </Field>
        <Field id="audit-target" label="Target type" className="w-56">
          <Select id="audit-target" value={targetType} onChange={(e) => setTargetType(e.target.value)}>
            {TARGETS.map((t) => (
              <option key={t} value={t}>{t || 'Any'}</option>
            ))}
          </Select>
        </Field>
        <Button type="submit" variant="secondary">Filter</Button>
      </form>
      <ListView
        query={list}
        items={(data) => data.entries}
        loadingRows={8}
        errorTitle="The audit log could not be loaded"
        empty={<EmptyState title="No audit records match" />}
        onPage={setPage}
      >
        {(entries) => (
          <Table caption="Audit log">
            <thead>
              <tr>
                <th scope="col" className={th}>When</th>
                <th scope="col" className={th}>Action</th>
                <th scope="col" className={th}>Actor</th>
                <th scope="col" className={th}>Target</th>
                <th scope="col" className={th}>Details</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {entries.map((e) => (
                <tr key={e.id}>
                  <td className={`${td} whitespace-nowrap`}>{formatDate(e.created_at)}</td>
                  <td className={`${td} font-mono text-xs`}>{e.action}</td>
                  <td className={`${td} text-xs`}>
                    {e.actor_type}
                    {e.actor_id ? <span className="block font-mono break-all text-zinc-600">{e.actor_id}</span> : null}
                  </td>
                  <td className={`${td} text-xs`}>
                    {e.target_type}
                    {e.target_id ? <span className="block font-mono break-all text-zinc-600">{e.target_id}</span> : null}
                  </td>
                  <td className={`${td} max-w-md`}>
                    <code className="block font-mono text-xs break-all whitespace-pre-wrap text-zinc-700">{JSON.stringify(e.details)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </ListView>
    </div>
  );
}
