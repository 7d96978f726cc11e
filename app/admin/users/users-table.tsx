'use client';
/**
 * Platform users. A role change is staged in the row's select and applied only through Apply → a confirmation
 * that states it ("Make Bob a platform admin?"): arrow keys on a focused select change nothing on the server.
 * Changes the server would refuse are not offered (superadmin changes by a non-superadmin, demoting or deleting
 * the last superadmin).
 */
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { ConfirmDialog } from '../../_components/dialog';
import { Badge, Button, EmptyState, Field, Select } from '../../_components/ui';
import { Cell, ListTable, ListView, Row } from '../../_components/list-view';
import { SearchForm } from '../../_components/search-form';
import { SUPERADMINS_INPUT, usersInput } from '../list-params';
import { useListUrl } from '../use-list-url';
import { RelativeTime } from '../../_components/relative-time';

type Role = 'user' | 'admin' | 'superadmin';
type User = RouterOutputs['admin']['listUsers']['users'][number];

const ROLE_NAMES: Record<Role, string> = {
  user: 'a regular user',
  admin: 'a platform admin',
  superadmin: 'a superadmin',
};
const ROLE_EFFECTS: Record<Role, string> = {
  user: 'They lose access to the admin pages and the admin API.',
  admin: 'They can curate the catalog, manage organizations, users and keys, and read the audit log.',
  superadmin: 'They get everything a platform admin has, and can also grant and revoke the superadmin role.',
};
const RANK: Record<Role, number> = { user: 0, admin: 1, superadmin: 2 };

const who = (u: User) => u.name || u.email;

export function UsersTable({ selfId, viewerRole }: { selfId: string; viewerRole: Role }) {
  const utils = trpc.useUtils();
  const url = useListUrl();
  const input = usersInput(url.raw);
  const list = trpc.admin.listUsers.useQuery(input, { placeholderData: (p) => p });
  const superadmins = trpc.admin.listUsers.useQuery(SUPERADMINS_INPUT);
  const lastSuperadmin = (superadmins.data?.pagination.total ?? 1) <= 1;
  const [changing, setChanging] = useState<{ user: User; role: Role } | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  // Bumped when a staged change is cancelled: the rows' selects show the applied roles again.
  const [resets, setResets] = useState(0);

  const update = trpc.admin.updateUser.useMutation({
    onSuccess: async (d) => {
      // The rows show the applied role before the toast says so: a change staged right after the toast applies
      // to the new role, not to a row that the refetch then resets.
      await utils.admin.listUsers.invalidate();
      setChanging(null);
      toast.success(`${d.user.email} is now ${d.user.role}`);
    },
  });
  const remove = trpc.admin.deleteUser.useMutation({
    onSuccess: async (d) => {
      toast.success(`${d.deleted.email} deleted`);
      setDeleting(null);
      await Promise.all([utils.admin.listUsers.invalidate(), utils.admin.stats.invalidate()]);
    },
  });

  /** Why this user's role cannot be changed by the viewer, or null. */
  const roleLocked = (u: User): string | null => {
    if (u.role === 'superadmin' && viewerRole !== 'superadmin') return 'Only a superadmin can change a superadmin.';
    if (u.role === 'superadmin' && lastSuperadmin) return 'The only superadmin: make someone else superadmin first.';
    return null;
  };
  const canDelete = (u: User) =>
    u.id !== selfId && !(u.role === 'superadmin' && (viewerRole !== 'superadmin' || lastSuperadmin));

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <SearchForm
          id="user-search"
          label="Search users"
          placeholder="Email"
          value={input.search ?? ''}
          onSearch={(q) => url.go({ search: q })}
        />
        <Field id="user-role-filter" label="Role" className="w-40">
          <Select id="user-role-filter" value={input.role ?? ''} onChange={(e) => url.go({ role: e.target.value })}>
            <option value="">All roles</option>
            <option value="user">user</option>
            <option value="admin">admin</option>
            <option value="superadmin">superadmin</option>
          </Select>
        </Field>
      </div>
      <ListView
        query={list}
        items={(data) => data.users}
        loadingRows={5}
        errorTitle="Users could not be loaded"
        empty={<EmptyState title={input.search ? `No user matches “${input.search}”` : 'No users match'} />}
        onPage={(page) => url.go({ page })}
      >
        {(users) => (
          <ListTable
            caption="Users"
            columns={[
              { label: 'User' },
              { label: 'Organization' },
              { label: 'Platform role' },
              { label: 'Since' },
              { label: 'Actions', hidden: true },
            ]}
          >
            {users.map((u) => (
              <Row key={u.id} testId={`user-row-${u.email}`}>
                <Cell primary>
                  <span className="font-medium">{u.name || '—'}</span> {u.id === selfId ? <Badge>you</Badge> : null}
                  <span className="block text-xs break-all text-zinc-600">{u.email}</span>
                </Cell>
                <Cell label="Organization">
                  {u.organization ? (
                    <>
                      {u.organization.name} <span className="text-xs text-zinc-600">({u.organization.role})</span>
                    </>
                  ) : (
                    <span className="text-zinc-600">—</span>
                  )}
                </Cell>
                <Cell label="Platform role">
                  <RoleControl
                    key={`${u.role}-${resets}`}
                    user={u}
                    locked={roleLocked(u)}
                    canGrantSuperadmin={viewerRole === 'superadmin'}
                    onApply={(role) => {
                      update.reset();
                      setChanging({ user: u, role });
                    }}
                  />
                </Cell>
                <Cell label="Since" nowrap>
                  <RelativeTime value={u.created_at} />
                </Cell>
                <Cell actions>
                  {canDelete(u) ? (
                    <Button
                      size="sm"
                      variant="danger"
                      aria-label={`Delete ${u.email}`}
                      onClick={() => {
                        remove.reset();
                        setDeleting(u);
                      }}
                    >
                      Delete
                    </Button>
                  ) : null}
                </Cell>
              </Row>
            ))}
          </ListTable>
        )}
      </ListView>
      <ConfirmDialog
        open={changing !== null}
        onClose={() => {
          setChanging(null);
          setResets((n) => n + 1);
        }}
        onConfirm={() => changing && update.mutate({ id: changing.user.id, role: changing.role })}
        pending={update.isPending}
        error={update.error ? errorMessage(update.error) : null}
        variant={changing && RANK[changing.role] < RANK[changing.user.role] ? 'danger' : 'primary'}
        title={changing ? `Make ${who(changing.user)} ${ROLE_NAMES[changing.role]}?` : ''}
        confirmLabel={changing ? `Make ${changing.role}` : 'Confirm'}
      >
        {changing ? (
          <p>
            {changing.user.email} is {ROLE_NAMES[changing.user.role]} now. {ROLE_EFFECTS[changing.role]}
            {changing.user.id === selfId ? ' This is your own account.' : ''}
          </p>
        ) : null}
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
        pending={remove.isPending}
        error={remove.error ? errorMessage(remove.error) : null}
        title={`Delete ${deleting ? who(deleting) : ''}?`}
        confirmLabel="Delete user"
      >
        <p>
          {deleting?.email} loses their organization membership and personal access tokens at once. Signing in again
          creates a new account. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** The row's role select stages a value; only Apply (then the confirmation) changes anything. */
function RoleControl({
  user,
  locked,
  canGrantSuperadmin,
  onApply,
}: {
  user: User;
  locked: string | null;
  canGrantSuperadmin: boolean;
  onApply: (role: Role) => void;
}) {
  const [staged, setStaged] = useState<Role>(user.role);
  const hintId = `role-hint-${user.id}`;
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-2">
        <Select
          aria-label={`Platform role of ${user.email}`}
          aria-describedby={locked ? hintId : undefined}
          value={staged}
          disabled={locked !== null}
          onChange={(e) => setStaged(e.target.value as Role)}
          className="w-36"
        >
          <option value="user">user</option>
          <option value="admin">admin</option>
          <option value="superadmin" disabled={!canGrantSuperadmin && user.role !== 'superadmin'}>
            superadmin
          </option>
        </Select>
        {locked === null ? (
          <Button
            size="sm"
            variant="secondary"
            disabled={staged === user.role}
            onClick={() => onApply(staged)}
            aria-label={`Apply the role of ${user.email}`}
          >
            Apply
          </Button>
        ) : null}
      </div>
      {locked ? (
        <p id={hintId} className="text-xs text-zinc-600">
          {locked}
        </p>
      ) : null}
    </div>
  );
}
