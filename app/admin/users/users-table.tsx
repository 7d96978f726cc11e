'use client';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc } from '../../_lib/trpc';
import { Badge, EmptyState, formatDate, Select, Table, td, th } from '../../_components/ui';
import { ListView } from '../../_components/list-view';
import { SearchForm } from '../../_components/search-form';

type Role = 'user' | 'admin' | 'superadmin';

export function UsersTable({ selfId }: { selfId: string }) {
  const utils = trpc.useUtils();
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const list = trpc.admin.listUsers.useQuery({ search: query || undefined, page, limit: 25 }, { placeholderData: (p) => p });
  const update = trpc.admin.updateUser.useMutation({
    onSuccess: async (d) => {
      toast.success(`${d.user.email} is now ${d.user.role}`);
      await utils.admin.listUsers.invalidate();
    },
    onError: async (err) => {
      toast.error(errorMessage(err));
      await utils.admin.listUsers.invalidate();
    },
  });
  return (
    <div className="space-y-3">
      <SearchForm
        id="user-search"
        label="Search users"
        placeholder="Email"
        onSearch={(q) => {
          setQuery(q);
          setPage(1);
        }}
      />
      <ListView
        query={list}
        items={(data) => data.users}
        loadingRows={5}
        errorTitle="Users could not be loaded"
        empty={<EmptyState title="No users match" />}
        onPage={setPage}
      >
        {(users) => (
          <Table caption="Users">
            <thead>
              <tr>
                <th scope="col" className={th}>User</th>
                <th scope="col" className={th}>Organization</th>
                <th scope="col" className={th}>Platform role</th>
                <th scope="col" className={th}>Since</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {users.map((u) => (
                <tr key={u.id}>
                  <td className={td}>
                    <span className="font-medium">{u.name || '—'}</span> {u.id === selfId ? <Badge>you</Badge> : null}
                    <span className="block text-xs break-all text-zinc-600">{u.email}</span>
                  </td>
                  <td className={td}>
                    {u.organization ? (
                      <>
                        {u.organization.name} <span className="text-xs text-zinc-600">({u.organization.role})</span>
                      </>
                    ) : (
                      <span className="text-zinc-600">—</span>
                    )}
                  </td>
                  <td className={td}>
                    <Select
                      aria-label={`Platform role of ${u.email}`}
                      value={u.role}
                      disabled={update.isPending}
                      onChange={(e) => update.mutate({ id: u.id, role: e.target.value as Role })}
                      className="w-36"
                    >
                      <option value="user">user</option>
                      <option value="admin">admin</option>
                      <option value="superadmin">superadmin</option>
                    </Select>
                  </td>
                  <td className={`${td} whitespace-nowrap`}>{formatDate(u.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </ListView>
    </div>
  );
}
