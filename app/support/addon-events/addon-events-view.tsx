'use client';
import { useState } from 'react';
import { buttonClass, Button, EmptyState, Field, Input, Select } from '../../_components/ui';
import { trpc } from '../../_lib/trpc';
import { OrgSelect } from '../support-ui';
import { Cell, ListTable, ListView, Row } from '../../_components/list-view';
import { RelativeTime } from '../../_components/relative-time';

const LIMIT = 50;

interface Filters {
  org_id: string;
  instance_id: string;
  addon: string;
  action: string;
  since: string; // datetime-local, UTC
  until: string;
}
const EMPTY: Filters = { org_id: '', instance_id: '', addon: '', action: '', since: '', until: '' };

/** datetime-local value (read as UTC) → ISO 8601, or undefined. */
const toIso = (local: string) => (local ? `${local.length === 16 ? `${local}:00` : local}Z` : undefined);

function queryOf(f: Filters) {
  return {
    org_id: f.org_id || undefined,
    instance_id: f.instance_id || undefined,
    addon: f.addon.trim() || undefined,
    action: f.action.trim() || undefined,
    since: toIso(f.since),
    until: toIso(f.until),
  };
}

export function AddonEventsView({ isAdmin }: { isAdmin: boolean }) {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [page, setPage] = useState(1);
  const query = queryOf(applied);
  const list = trpc.support.listAddonEvents.useQuery(
    { ...query, page, limit: LIMIT },
    { placeholderData: (prev) => prev },
  );
  const instances = trpc.support.listInstances.useQuery({ org_id: draft.org_id || undefined, limit: 100 });
  const exportHref = (format: 'csv' | 'ndjson') => {
    const params = new URLSearchParams({ format });
    for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
    return `/api/export/addon-events?${params}`;
  };
  const set = (key: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));

  return (
    <div className="space-y-4">
      <form
        className="grid gap-3 sm:grid-cols-3"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(draft);
          setPage(1);
        }}
      >
        {isAdmin ? (
          <Field id="ev-org" label="Organization">
            <OrgSelect
              id="ev-org"
              value={draft.org_id}
              onChange={(v) => setDraft((d) => ({ ...d, org_id: v, instance_id: '' }))}
            />
          </Field>
        ) : null}
        <Field id="ev-instance" label="Instance">
          <Select id="ev-instance" value={draft.instance_id} onChange={(e) => set('instance_id')(e.target.value)}>
            <option value="">All instances</option>
            {(instances.data?.instances ?? []).map((i) => (
              <option key={i.id} value={i.id}>
                {i.name}
                {isAdmin ? ` (${i.organization.slug})` : ''}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="ev-addon" label="Addon">
          <Input
            id="ev-addon"
            value={draft.addon}
            onChange={(e) => set('addon')(e.target.value)}
            placeholder="e.g. backup"
          />
        </Field>
        <Field id="ev-action" label="Action">
          <Input
            id="ev-action"
            value={draft.action}
            onChange={(e) => set('action')(e.target.value)}
            placeholder="e.g. snapshot.create"
          />
        </Field>
        <Field id="ev-since" label="From (UTC)">
          <Input
            id="ev-since"
            type="datetime-local"
            value={draft.since}
            onChange={(e) => set('since')(e.target.value)}
          />
        </Field>
        <Field id="ev-until" label="Until (UTC, exclusive)">
          <Input
            id="ev-until"
            type="datetime-local"
            value={draft.until}
            onChange={(e) => set('until')(e.target.value)}
          />
        </Field>
        <div className="flex flex-wrap items-end gap-2 sm:col-span-3">
          <Button type="submit">Apply filters</Button>
          <Button
            variant="ghost"
            onClick={() => {
              setDraft(EMPTY);
              setApplied(EMPTY);
              setPage(1);
            }}
          >
            Clear
          </Button>
          <span className="flex flex-wrap gap-2 sm:ml-auto">
            <a className={buttonClass('secondary', 'sm')} href={exportHref('csv')} download>
              Export CSV
            </a>
            <a className={buttonClass('secondary', 'sm')} href={exportHref('ndjson')} download>
              Export NDJSON
            </a>
          </span>
        </div>
      </form>
      <ListView
        query={list}
        items={(data) => data.events}
        loadingRows={8}
        errorTitle="Events could not be loaded"
        empty={
          <EmptyState title="No events match">
            Instances ship events through POST /api/v1/addon-audit-events.
          </EmptyState>
        }
        onPage={setPage}
      >
        {(events) => (
          <ListTable
            caption="Addon audit events"
            columns={[
              { label: 'Occurred' },
              ...(isAdmin ? [{ label: 'Organization' }] : []),
              { label: 'Instance' },
              { label: 'Addon' },
              { label: 'Action' },
              { label: 'Actor' },
              { label: 'Details' },
            ]}
          >
            {events.map((e) => (
              <Row key={e.id}>
                <Cell label="Occurred" nowrap>
                  <RelativeTime value={e.occurred_at} />
                </Cell>
                {isAdmin ? <Cell label="Organization">{e.organization.name}</Cell> : null}
                <Cell label="Instance">{e.instance?.name ?? '—'}</Cell>
                <Cell label="Addon">{e.addon}</Cell>
                <Cell label="Action">
                  <span className="font-mono text-xs break-all">{e.action}</span>
                </Cell>
                <Cell label="Actor" className="break-all">
                  {e.actor ?? '—'}
                </Cell>
                <Cell label="Details" className="min-w-0">
                  {e.details ? (
                    <details>
                      <summary className="cursor-pointer text-xs text-blue-700">Show</summary>
                      <pre className="mt-1 max-h-60 max-w-[calc(100vw-4rem)] overflow-auto rounded bg-zinc-50 p-2 text-xs sm:max-w-md">
                        {JSON.stringify(e.details, null, 2)}
                      </pre>
                    </details>
                  ) : (
                    '—'
                  )}
                </Cell>
              </Row>
            ))}
          </ListTable>
        )}
      </ListView>
    </div>
  );
}
