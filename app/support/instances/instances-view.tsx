'use client';
import { useState } from 'react';
import { toast } from 'sonner';
import { Badge, Button, EmptyState, Field, Select } from '../../_components/ui';
import { errorMessage } from '../../_lib/errors';
import { trpc } from '../../_lib/trpc';
import { OrgSelect, PublishBadge } from '../support-ui';
import { Cell, ListTable, ListView, Row } from '../../_components/list-view';
import { RelativeTime } from '../../_components/relative-time';

const LIMIT = 25;
type PublishState = 'published' | 'pending' | 'failed' | 'local';

export function InstancesView({ isAdmin }: { isAdmin: boolean }) {
  const utils = trpc.useUtils();
  const [orgId, setOrgId] = useState('');
  const [state, setState] = useState<PublishState | ''>('');
  const [page, setPage] = useState(1);
  const list = trpc.support.listInstances.useQuery(
    { org_id: orgId || undefined, publish_state: state || undefined, page, limit: LIMIT },
    { placeholderData: (prev) => prev, refetchInterval: 15_000 },
  );
  const retry = trpc.support.retryDnsPublish.useMutation({
    onSuccess: async (r) => {
      if (r?.publish_state === 'published') toast.success(`${r.hostname} published`);
      else toast.warning(`${r?.hostname}: still ${r?.publish_state}${r?.error ? ` — ${r.error}` : ''}`);
      await utils.support.listInstances.invalidate();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });

  return (
    <div className="space-y-4">
      <div className="grid gap-3 sm:grid-cols-3">
        {isAdmin ? (
          <Field id="inst-org" label="Organization">
            <OrgSelect
              id="inst-org"
              value={orgId}
              onChange={(v) => {
                setOrgId(v);
                setPage(1);
              }}
            />
          </Field>
        ) : null}
        <Field id="inst-state" label="DNS publish state">
          <Select
            id="inst-state"
            value={state}
            onChange={(e) => {
              setState(e.target.value as PublishState | '');
              setPage(1);
            }}
          >
            <option value="">Any</option>
            <option value="published">Published</option>
            <option value="pending">Pending</option>
            <option value="failed">Failed</option>
            <option value="local">Hub only (no DNS provider)</option>
          </Select>
        </Field>
      </div>
      <ListView
        query={list}
        items={(data) => data.instances}
        loadingRows={6}
        errorTitle="Instances could not be loaded"
        empty={<EmptyState title="No instances">Instance keys are created on the Account page.</EmptyState>}
        onPage={setPage}
      >
        {(instances) => (
          <ListTable
            caption="Instances"
            columns={[
              { label: 'Instance' },
              ...(isAdmin ? [{ label: 'Organization' }] : []),
              { label: 'Reported' },
              { label: 'DNS' },
              { label: 'Last used' },
            ]}
          >
            {instances.map((i) => (
              <Row key={i.id}>
                <Cell>
                  <div className="font-medium">{i.name}</div>
                  <div className="font-mono text-xs text-zinc-600">{i.key_prefix}…</div>
                  {i.status !== 'active' ? <Badge tone="red">{i.status}</Badge> : null}
                </Cell>
                {isAdmin ? <Cell label="Organization">{i.organization.name}</Cell> : null}
                <Cell label="Reported" className="min-w-0">
                  {i.reported ? (
                    <dl className="space-y-0.5 text-xs">
                      <div>
                        <dt className="inline text-zinc-600">Version </dt>
                        <dd className="inline">{i.reported.version ?? '—'}</dd>
                      </div>
                      <div className="max-w-[calc(100vw-10rem)] truncate sm:max-w-xs" title={i.reported.base_url ?? ''}>
                        <dt className="inline text-zinc-600">URL </dt>
                        <dd className="inline">{i.reported.base_url ?? '—'}</dd>
                      </div>
                      <div className="max-w-[calc(100vw-10rem)] truncate sm:max-w-xs" title={i.reported.mcp_url ?? ''}>
                        <dt className="inline text-zinc-600">MCP </dt>
                        <dd className="inline">{i.reported.mcp_url ?? '—'}</dd>
                      </div>
                      <div className="text-zinc-600">
                        <dt className="sr-only">Reported </dt>
                        <dd className="inline">
                          <RelativeTime value={i.reported.reported_at} />
                        </dd>
                      </div>
                    </dl>
                  ) : (
                    <span className="text-zinc-600">Never</span>
                  )}
                </Cell>
                <Cell label="DNS" className="min-w-0">
                  {i.dns_publish ? (
                    <div className="space-y-1 text-xs">
                      {i.dns ? (
                        <div>
                          <span className="font-mono break-all">{i.dns.hostname}</span> →{' '}
                          <span className="font-mono">{i.dns.ip}</span>
                        </div>
                      ) : (
                        <div className="text-zinc-600">Being removed from DNS</div>
                      )}
                      <div className="flex flex-wrap items-center gap-2">
                        <PublishBadge state={i.dns_publish.state} />
                        {i.dns_publish.attempts > 0 ? (
                          <span className="text-zinc-600">{i.dns_publish.attempts} failed attempt(s)</span>
                        ) : null}
                        {i.dns_publish.state === 'pending' && i.dns_publish.next_attempt_at ? (
                          <span className="text-zinc-600">
                            next <RelativeTime value={i.dns_publish.next_attempt_at} />
                          </span>
                        ) : null}
                      </div>
                      {i.dns_publish.error ? <p className="max-w-sm text-red-800">{i.dns_publish.error}</p> : null}
                      {isAdmin && (i.dns_publish.state === 'failed' || i.dns_publish.state === 'pending') ? (
                        <Button
                          size="sm"
                          variant="secondary"
                          disabled={retry.isPending}
                          onClick={() => retry.mutate({ instance_id: i.id })}
                        >
                          Retry publish now
                        </Button>
                      ) : null}
                    </div>
                  ) : (
                    <span className="text-zinc-600">No record</span>
                  )}
                </Cell>
                <Cell label="Last used" nowrap>
                  <RelativeTime value={i.last_used_at} />
                </Cell>
              </Row>
            ))}
          </ListTable>
        )}
      </ListView>
    </div>
  );
}
