'use client';
import Link from 'next/link';
import { trpc } from '../../_lib/trpc';
import { Badge, EmptyState, Field, Select } from '../../_components/ui';
import { Cell, ListTable, ListView, Row } from '../../_components/list-view';
import { SearchForm } from '../../_components/search-form';
import { organizationsInput } from '../list-params';
import { useListUrl } from '../use-list-url';
import { RelativeTime } from '../../_components/relative-time';

export function OrganizationsTable() {
  const url = useListUrl();
  const input = organizationsInput(url.raw);
  const query = input.search ?? '';
  const filtered = Boolean(input.search || input.status || input.tier);
  const list = trpc.admin.listOrganizations.useQuery(input, { placeholderData: (p) => p });
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <SearchForm
          id="org-search"
          label="Search organizations"
          placeholder="Name or slug"
          value={query}
          onSearch={(q) => url.go({ search: q })}
        />
        <Field id="org-status-filter" label="Status" className="w-36">
          <Select
            id="org-status-filter"
            value={input.status ?? ''}
            onChange={(e) => url.go({ status: e.target.value })}
          >
            <option value="">Any status</option>
            <option value="active">active</option>
            <option value="suspended">suspended</option>
          </Select>
        </Field>
        <Field id="org-tier-filter" label="Tier" className="w-36">
          <Select id="org-tier-filter" value={input.tier ?? ''} onChange={(e) => url.go({ tier: e.target.value })}>
            <option value="">Any tier</option>
            <option value="free">free</option>
            <option value="pro">pro</option>
            <option value="enterprise">enterprise</option>
          </Select>
        </Field>
      </div>
      <ListView
        query={list}
        items={(data) => data.organizations}
        loadingRows={5}
        errorTitle="Organizations could not be loaded"
        empty={
          <EmptyState title={filtered ? 'No organization matches' : 'No organizations yet'}>
            {filtered ? (
              <Link href="/admin/organizations" className="font-medium text-blue-700 underline">
                Clear the filters
              </Link>
            ) : (
              'Users create their organization from their account page.'
            )}
          </EmptyState>
        }
        onPage={(page) => url.go({ page })}
      >
        {(organizations) => (
          <ListTable
            caption="Organizations"
            columns={[
              { label: 'Name' },
              { label: 'Status' },
              { label: 'Tier' },
              { label: 'Members' },
              { label: 'Active keys' },
              { label: 'Created' },
            ]}
          >
            {organizations.map((o) => (
              <Row key={o.id}>
                <Cell primary>
                  <Link
                    href={`/admin/organizations/${o.id}`}
                    className="font-medium text-blue-700 underline-offset-2 hover:underline"
                  >
                    {o.name}
                  </Link>
                  <span className="block font-mono text-xs break-all text-zinc-600">{o.slug}</span>
                </Cell>
                <Cell label="Status">
                  <Badge tone={o.status === 'active' ? 'green' : 'red'}>{o.status}</Badge>
                </Cell>
                <Cell label="Tier">
                  <Badge tone="blue">{o.tier}</Badge>
                </Cell>
                <Cell label="Members">{o.member_count}</Cell>
                <Cell label="Active keys">{o.api_key_count}</Cell>
                <Cell label="Created" nowrap>
                  <RelativeTime value={o.created_at} />
                </Cell>
              </Row>
            ))}
          </ListTable>
        )}
      </ListView>
    </div>
  );
}
