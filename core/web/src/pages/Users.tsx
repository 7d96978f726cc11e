import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { core } from '../api';
import {
  ConfirmButton,
  ErrorNotice,
  Field,
  formatDate,
  ListTable,
  PageHeading,
  Pager,
  RoleSelect,
  useMe,
} from '../components';
import type { Role, User } from '../types';

export function Users() {
  const { isAdmin } = useMe();
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['users', page],
    queryFn: () => core.users({ page }),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeading>Users</PageHeading>
      {isAdmin && <UserForm />}
      <ErrorNotice error={list.error} />
      {list.data && (
        <>
          <ListTable
            caption="Users"
            columns={['Email', 'Name', 'Role', 'Sign-in', 'Created', ...(isAdmin ? ['Actions'] : [])]}
          >
            {list.data.users.map((u) => (
              <UserRow key={u.id} user={u} isAdmin={isAdmin} />
            ))}
          </ListTable>
          <Pager pagination={list.data.pagination} onPage={setPage} label="Users pages" />
        </>
      )}
      <RemovedPeople isAdmin={isAdmin} />
    </>
  );
}

/** OIDC people an admin deleted: refused at sign-in until an admin re-admits them. */
function RemovedPeople({ isAdmin }: { isAdmin: boolean }) {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ['blocked-identities'], queryFn: core.blockedIdentities });
  const readmit = useMutation({
    mutationFn: core.readmit,
    onSuccess: () => qc.invalidateQueries({ queryKey: ['blocked-identities'] }),
  });
  if (!list.data || list.data.blocked.length === 0) return <ErrorNotice error={list.error} />;
  return (
    <section aria-labelledby="removed-heading">
      <h2 id="removed-heading">Removed people</h2>
      <p className="muted">
        Single sign-on people deleted here: the identity provider still knows them, but Core refuses their sign-in until
        re-admitted.
      </p>
      <ListTable caption="Removed people" columns={['Email', 'Removed', ...(isAdmin ? ['Actions'] : [])]}>
        {list.data.blocked.map((b) => (
          <tr key={b.id}>
            <th scope="row" data-label="Email">
              {b.email}
            </th>
            <td data-label="Removed">
              {formatDate(b.blocked_at)} by {b.blocked_by}
            </td>
            {isAdmin && (
              <td data-label="Actions">
                <button
                  type="button"
                  onClick={() => readmit.mutate(b.id)}
                  disabled={readmit.isPending}
                  aria-label={`Re-admit ${b.email}`}
                >
                  Re-admit
                </button>
              </td>
            )}
          </tr>
        ))}
      </ListTable>
      <ErrorNotice error={readmit.error} />
    </section>
  );
}

function UserRow({ user, isAdmin }: { user: User; isAdmin: boolean }) {
  const qc = useQueryClient();
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['users'] }),
      qc.invalidateQueries({ queryKey: ['me'] }),
      qc.invalidateQueries({ queryKey: ['blocked-identities'] }),
    ]);
  const setRole = useMutation({ mutationFn: (role: Role) => core.updateUser(user.id, { role }), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => core.deleteUser(user.id), onSuccess: refresh });
  return (
    <tr>
      <th scope="row" data-label="Email">
        {user.email}
      </th>
      <td data-label="Name">{user.name || '—'}</td>
      <td data-label="Role">
        {isAdmin ? (
          <RoleSelect
            aria-label={`Role of ${user.email}`}
            value={user.role}
            disabled={setRole.isPending}
            onChange={(role) => setRole.mutate(role)}
          />
        ) : (
          user.role
        )}
      </td>
      <td data-label="Sign-in">{user.kind === 'oidc' ? 'single sign-on' : 'password'}</td>
      <td data-label="Created">{formatDate(user.created_at)}</td>
      {isAdmin && (
        <td data-label="Actions">
          <ConfirmButton
            label="Delete"
            subject={user.email}
            onConfirm={() => remove.mutate()}
            busy={remove.isPending}
          />
          <ErrorNotice error={setRole.error ?? remove.error} />
        </td>
      )}
    </tr>
  );
}

function UserForm() {
  const qc = useQueryClient();
  const empty = { email: '', name: '', password: '', role: 'readonly' as Role };
  const [form, setForm] = useState(empty);
  const create = useMutation({
    mutationFn: () =>
      core.createUser({
        email: form.email,
        password: form.password,
        role: form.role,
        ...(form.name ? { name: form.name } : {}),
      }),
    onSuccess: () => {
      setForm(empty);
      return qc.invalidateQueries({ queryKey: ['users'] });
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate();
  }
  return (
    <form onSubmit={submit} className="panel grid" aria-label="Add a user">
      <h2>Add a user</h2>
      <Field label="Email">
        {(id) => (
          <input
            id={id}
            type="email"
            autoComplete="off"
            required
            value={form.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
          />
        )}
      </Field>
      <Field label="Name">
        {(id) => <input id={id} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
      </Field>
      <Field label="Password" hint="12 to 256 characters.">
        {(id, hint) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            aria-describedby={hint}
            required
            minLength={12}
            maxLength={256}
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
          />
        )}
      </Field>
      <Field label="Role">
        {(id) => <RoleSelect id={id} value={form.role} onChange={(role) => setForm({ ...form, role })} />}
      </Field>
      <ErrorNotice error={create.error} />
      <div className="submit">
        <button type="submit" className="primary" disabled={create.isPending}>
          Add user
        </button>
      </div>
    </form>
  );
}
