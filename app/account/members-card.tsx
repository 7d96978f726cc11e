'use client';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from '../_lib/errors';
import { trpc, type RouterOutputs } from '../_lib/trpc';
import { ConfirmDialog } from '../_components/dialog';
import { Badge, Button, Card, ErrorState, Field, formatDate, Input, Loading, Select, Table, td, th } from '../_components/ui';

type Member = RouterOutputs['account']['listMembers']['members'][number];

export function MembersCard({ isOrgAdmin, selfId }: { isOrgAdmin: boolean; selfId: string }) {
  const utils = trpc.useUtils();
  const members = trpc.account.listMembers.useQuery({});
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [removing, setRemoving] = useState<Member | null>(null);
  const refresh = () => utils.account.listMembers.invalidate();

  const add = trpc.account.addMember.useMutation({
    onSuccess: async (data) => {
      toast.success(`${data.member.email} added as ${data.member.role}`);
      setEmail('');
      await refresh();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });
  const update = trpc.account.updateMember.useMutation({
    onSuccess: async (data) => {
      toast.success(`${data.member.email} is now ${data.member.role === 'admin' ? 'an admin' : 'a member'}`);
      await refresh();
    },
    onError: async (err) => {
      toast.error(errorMessage(err));
      await refresh();
    },
  });
  const remove = trpc.account.removeMember.useMutation({
    onSuccess: async () => {
      toast.success(`${removing?.email ?? 'Member'} removed`);
      setRemoving(null);
      await refresh();
    },
    onError: (err) => toast.error(errorMessage(err)),
  });
  const errors = fieldErrors(add.error);

  return (
    <Card title="Members" description={isOrgAdmin ? 'Add people who have signed in to the Hub at least once, by email.' : 'People in your organization.'}>
      {isOrgAdmin ? (
        <form
          className="mb-4 grid grid-cols-1 gap-2 sm:grid-cols-[1fr_10rem_auto] sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate({ email: email.trim(), role });
          }}
        >
          <Field id="member-email" label="Email" error={errors.email ?? (add.error && !errors.email ? errorMessage(add.error) : undefined)}>
            <Input id="member-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required aria-invalid={add.error ? true : undefined} />
          </Field>
          <Field id="member-role" label="Role">
            <Select id="member-role" value={role} onChange={(e) => setRole(e.target.value as 'member' | 'admin')}>
              <option value="member">Member</option>
              <option value="admin">Admin</option>
            </Select>
          </Field>
          <Button type="submit" disabled={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add member'}
          </Button>
        </form>
      ) : null}
      {members.isPending ? (
        <Loading rows={2} />
      ) : members.isError ? (
        <ErrorState message={errorMessage(members.error)} />
      ) : (
        <Table caption="Members">
          <thead>
            <tr>
              <th scope="col" className={th}>Name</th>
              <th scope="col" className={th}>Email</th>
              <th scope="col" className={th}>Role</th>
              <th scope="col" className={th}>Joined</th>
              {isOrgAdmin ? <th scope="col" className={th}><span className="sr-only">Actions</span></th> : null}
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {members.data.members.map((m) => (
              <tr key={m.user_id}>
                <td className={`${td} font-medium`}>
                  {m.name || '—'} {m.user_id === selfId ? <Badge>you</Badge> : null}
                </td>
                <td className={`${td} break-all`}>{m.email}</td>
                <td className={td}>
                  {isOrgAdmin ? (
                    <Select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      disabled={update.isPending}
                      onChange={(e) => update.mutate({ user_id: m.user_id, role: e.target.value as 'member' | 'admin' })}
                      className="w-32"
                    >
                      <option value="member">Member</option>
                      <option value="admin">Admin</option>
                    </Select>
                  ) : (
                    <Badge tone={m.role === 'admin' ? 'violet' : 'neutral'}>{m.role}</Badge>
                  )}
                </td>
                <td className={`${td} whitespace-nowrap`}>{formatDate(m.joined_at)}</td>
                {isOrgAdmin ? (
                  <td className={`${td} text-right`}>
                    <Button size="sm" variant="secondary" onClick={() => setRemoving(m)} aria-label={`Remove ${m.email}`}>
                      Remove
                    </Button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate({ user_id: removing.user_id })}
        pending={remove.isPending}
        title={`Remove ${removing?.email ?? ''}?`}
        confirmLabel="Remove member"
      >
        <p>They lose access to the organization at once, and the personal access tokens they minted stop working.</p>
      </ConfirmDialog>
    </Card>
  );
}
