'use client';
import Link from 'next/link';
import { useState } from 'react';
import { trpc } from '../../_lib/trpc';
import { Badge, EmptyState, formatDate, Table, td, th } from '../../_components/ui';
import { ListView } from '../../_components/list-view';
import { SearchForm } from '../../_components/search-form';

export function OrganizationsTable() {
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const list = trpc.admin.listOrganizations.useQuery({ search: query || undefined, page, limit: 25 }, { placeholderData: (p) => p });
  return (
    <div className="space-y-3">
      <SearchForm
        id="org-search"
        label="Search organizations"
        placeholder="Name or slug"
        onSearch={(q) => {
          setQuery(q);
          setPage(1);
        }}
      />
      <ListView
        query={list}
        items={(data) => data.organizations}
        loadingRows={5}
        errorTitle="Organizations could not be loaded"
        empty={<EmptyState title={query ? `No organization matches “${query}”` : 'No organizations yet'}>Users create their organization from their account page.</EmptyState>}
        onPage={setPage}
      >
        {(organizations) => (
          <Table caption="Organizations">
            <thead>
              <tr>
                <th scope="col" className={th}>Name</th>
                <th scope="col" className={th}>Status</th>
                <th scope="col" className={th}>Tier</th>
                <th scope="col" className={th}>Members</th>
                <th scope="col" className={th}>Active keys</th>
                <th scope="col" className={th}>Created</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {organizations.map((o) => (
                <tr key={o.id}>
                  <td className={td}>
                    <Link href={`/admin/organizations/${o.id}`} className="font-medium text-blue-700 underline-offset-2 hover:underline">{o.name}</Link>
                    <span className="block font-mono text-xs text-zinc-600">{o.slug}</span>
                  </td>
                  <td className={td}><Badge tone={o.status === 'active' ? 'green' : 'red'}>{o.status}</Badge></td>
                  <td className={td}><Badge tone="blue">{o.tier}</Badge></td>
                  <td className={td}>{o.member_count}</td>
                  <td className={td}>{o.api_key_count}</td>
                  <td className={`${td} whitespace-nowrap`}>{formatDate(o.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </ListView>
    </div>
  );
}
