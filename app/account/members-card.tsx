'use client';
/**
 * The organization's people: members (role changes and removal for admins, always as an explicit action
 * behind a confirmation), invitations (admins invite by email; nobody joins without accepting), and
 * leaving the organization. Laid out as stacked rows, so every action stays visible at phone width.
 */
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from '../_lib/errors';
import { trpc, type RouterOutputs } from '../_lib/trpc';
import { ConfirmDialog, Dialog } from '../_components/dialog';
import { Badge, Button, Card, ErrorState, Field, Input, Loading, Select } from '../_components/ui';
import { RelativeTime } from '../_components/relative-time';

type Member = RouterOutputs['account']['listMembers']['members'][number];
type Invitation = RouterOutputs['account']['listInvitations']['invitations'][number];
type Role = 'member' | 'admin';

const roleLabel = (role: Role) => (role === 'admin' ? 'Admin' : 'Member');
const aRole = (role: Role) => (role === 'admin' ? 'an admin' : 'a member');
/** Domain messages name the field they are about ("email: …"); the form shows them beside that field already. */
const forPeople = (message: string) => message.replace(/^[a-z_]+: /, '').replace(/^./, (c) => c.toUpperCase());
const who = (m: { name: string; email: string }) => m.name || m.email;

export function MembersCard({ isOrgAdmin, selfId, orgName }: { isOrgAdmin: boolean; selfId: string; orgName: string }) {
  const utils = trpc.useUtils();
  const members = trpc.account.listMembers.useQuery({});
  const [removing, setRemoving] = useState<Member | null>(null);
  const [changing, setChanging] = useState<{ member: Member; role: Role } | null>(null);
  /** Per member: the role picked in the select, not applied until confirmed. */
  const [drafts, setDrafts] = useState<Record<string, Role>>({});
  const [leaving, setLeaving] = useState(false);
  const refresh = () => utils.account.listMembers.invalidate();
  const clearDraft = (userId: string) =>
    setDrafts((d) => {
      const { [userId]: _dropped, ...rest } = d;
      return rest;
    });

  const update = trpc.account.updateMember.useMutation({
    onSuccess: async (data) => {
      toast.success(`${who(data.member)} is now ${aRole(data.member.role)} of ${orgName}`);
      clearDraft(data.member.user_id);
      setChanging(null);
      await refresh();
    },
    onError: async (err) => {
      toast.error(forPeople(errorMessage(err)));
      setChanging(null);
      await refresh();
    },
  });
  const remove = trpc.account.removeMember.useMutation({
    onSuccess: async () => {
      toast.success(`${removing ? who(removing) : 'Member'} removed from ${orgName}`);
      setRemoving(null);
      await refresh();
    },
    onError: (err) => {
      toast.error(forPeople(errorMessage(err)));
      setRemoving(null);
    },
  });

  return (
    <Card
      title="Members"
      description={
        isOrgAdmin
          ? `People in ${orgName}. Invite someone by email; they join when they accept.`
          : `People in ${orgName}.`
      }
      actions={
        <Button variant="secondary" size="sm" onClick={() => setLeaving(true)}>
          Leave organization
        </Button>
      }
    >
      {isOrgAdmin ? <InviteForm /> : null}
      {members.isPending ? (
        <Loading rows={2} />
      ) : members.isError ? (
        <ErrorState message={errorMessage(members.error)} />
      ) : (
        <ul aria-label="Members" className="divide-y divide-zinc-200 rounded-lg border border-zinc-200">
          {members.data.members.map((m) => {
            const draft = drafts[m.user_id] ?? m.role;
            return (
              <li
                key={m.user_id}
                className="flex flex-col gap-3 p-3 sm:flex-row sm:items-center sm:justify-between"
                data-testid="member-row"
              >
                <div className="min-w-0">
                  <p className="font-medium text-zinc-900">
                    {m.name || '—'} {m.user_id === selfId ? <Badge>you</Badge> : null}{' '}
                    {!isOrgAdmin || m.role === 'admin' ? (
                      <Badge tone={m.role === 'admin' ? 'violet' : 'neutral'}>{m.role}</Badge>
                    ) : null}
                  </p>
                  <p className="text-sm [overflow-wrap:anywhere] text-zinc-700">{m.email}</p>
                  <p className="text-xs text-zinc-600">
                    Joined <RelativeTime value={m.joined_at} />
                  </p>
                </div>
                {isOrgAdmin ? (
                  <div className="flex flex-wrap items-center gap-2">
                    <label htmlFor={`role-${m.user_id}`} className="sr-only">
                      Role of {m.email}
                    </label>
                    {/* Picking a value only prepares the change: the button and its confirmation apply it. */}
                    <Select
                      id={`role-${m.user_id}`}
                      value={draft}
                      onChange={(e) => setDrafts((d) => ({ ...d, [m.user_id]: e.target.value as Role }))}
                      className="w-32 min-w-[8rem]"
                    >
                      <option value="member">Member</option>
                      <option value="admin">Admin</option>
                    </Select>
                    <Button
                      size="sm"
                      variant="secondary"
                      disabled={draft === m.role || update.isPending}
                      onClick={() => setChanging({ member: m, role: draft })}
                      aria-label={`Change role of ${m.email}`}
                    >
                      Change role
                    </Button>
                    <Button
                      size="sm"
                      variant="secondary"
                      onClick={() => setRemoving(m)}
                      aria-label={`Remove ${m.email}`}
                    >
                      Remove
                    </Button>
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      {isOrgAdmin ? <PendingInvitations /> : null}

      <ConfirmDialog
        open={changing !== null}
        onClose={() => {
          if (changing) clearDraft(changing.member.user_id);
          setChanging(null);
        }}
        onConfirm={() => changing && update.mutate({ user_id: changing.member.user_id, role: changing.role })}
        pending={update.isPending}
        title={changing ? `Make ${who(changing.member)} ${aRole(changing.role)} of ${orgName}?` : ''}
        confirmLabel={changing ? `Make ${roleLabel(changing.role).toLowerCase()}` : 'Change role'}
      >
        {changing?.role === 'admin' ? (
          <p>
            Admins manage the organization&apos;s instance keys, members and invitations, and can change everyone&apos;s
            role, including yours.
          </p>
        ) : (
          <p>{changing ? who(changing.member) : 'They'} will no longer manage instance keys, members or invitations.</p>
        )}
      </ConfirmDialog>
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate({ user_id: removing.user_id })}
        pending={remove.isPending}
        title={`Remove ${removing ? who(removing) : ''} from ${orgName}?`}
        confirmLabel="Remove member"
      >
        <p>They lose access to the organization at once, and the personal access tokens they minted stop working.</p>
      </ConfirmDialog>
      <LeaveDialog open={leaving} onClose={() => setLeaving(false)} orgName={orgName} />
    </Card>
  );
}

function InviteForm() {
  const utils = trpc.useUtils();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const invite = trpc.account.createInvitation.useMutation({
    onSuccess: async (data) => {
      toast.success(`Invitation for ${data.invitation.email} created; it waits for them in their Hub account`);
      setEmail('');
      setRole('member');
      await utils.account.listInvitations.invalidate();
    },
  });
  const errors = fieldErrors(invite.error);
  const emailError = errors.email ?? (invite.error && !errors.role ? forPeople(errorMessage(invite.error)) : undefined);
  return (
    <form
      className="mb-4 grid grid-cols-1 gap-2 sm:grid-cols-[1fr_10rem_auto] sm:items-end"
      aria-label="Invite a member"
      onSubmit={(e) => {
        e.preventDefault();
        invite.mutate({ email: email.trim(), role });
      }}
    >
      <Field id="invite-email" label="Email" error={emailError}>
        <Input
          id="invite-email"
          type="email"
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
          aria-invalid={emailError ? true : undefined}
        />
      </Field>
      <Field id="invite-role" label="Role" error={errors.role}>
        <Select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          <option value="member">Member</option>
          <option value="admin">Admin</option>
        </Select>
      </Field>
      <Button type="submit" disabled={invite.isPending}>
        {invite.isPending ? 'Inviting…' : 'Send invitation'}
      </Button>
    </form>
  );
}

function PendingInvitations() {
  const utils = trpc.useUtils();
  const invitations = trpc.account.listInvitations.useQuery({});
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const revoke = trpc.account.revokeInvitation.useMutation({
    onSuccess: async () => {
      toast.success(`Invitation for ${revoking?.email ?? 'them'} revoked`);
      setRevoking(null);
      await utils.account.listInvitations.invalidate();
    },
    onError: async (err) => {
      toast.error(forPeople(errorMessage(err)));
      setRevoking(null);
      await utils.account.listInvitations.invalidate();
    },
  });
  return (
    <section className="mt-5" aria-labelledby="pending-invitations-title">
      <h3 id="pending-invitations-title" className="mb-2 text-sm font-semibold text-zinc-900">
        Pending invitations
      </h3>
      {invitations.isPending ? (
        <Loading rows={1} />
      ) : invitations.isError ? (
        <ErrorState message={errorMessage(invitations.error)} />
      ) : invitations.data.invitations.length === 0 ? (
        <p className="text-sm text-zinc-600">No pending invitations.</p>
      ) : (
        <ul aria-label="Pending invitations" className="divide-y divide-zinc-200 rounded-lg border border-zinc-200">
          {invitations.data.invitations.map((inv) => (
            <li
              key={inv.id}
              className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center sm:justify-between"
              data-testid="invitation-row"
            >
              <div className="min-w-0">
                <p className="text-sm font-medium [overflow-wrap:anywhere] text-zinc-900">{inv.email}</p>
                <p className="text-xs text-zinc-600">
                  {roleLabel(inv.role)} · invited by {inv.invited_by ? who(inv.invited_by) : 'a former member'} ·
                  expires <RelativeTime value={inv.expires_at} />
                </p>
              </div>
              <Button
                size="sm"
                variant="secondary"
                onClick={() => setRevoking(inv)}
                aria-label={`Revoke invitation for ${inv.email}`}
              >
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        pending={revoke.isPending}
        title={`Revoke the invitation for ${revoking?.email ?? ''}?`}
        confirmLabel="Revoke invitation"
      >
        <p>It can no longer be accepted. You can invite them again later.</p>
      </ConfirmDialog>
    </section>
  );
}

function LeaveDialog({ open, onClose, orgName }: { open: boolean; onClose: () => void; orgName: string }) {
  const utils = trpc.useUtils();
  const router = useRouter();
  const leave = trpc.account.leaveOrganization.useMutation({
    onSuccess: async () => {
      toast.success(`You left ${orgName}`);
      onClose();
      await utils.invalidate();
      router.refresh();
    },
  });
  return (
    <Dialog
      open={open}
      onClose={() => {
        leave.reset();
        onClose();
      }}
      title={`Leave ${orgName}?`}
      footer={
        <>
          <Button
            variant="secondary"
            onClick={() => {
              leave.reset();
              onClose();
            }}
            disabled={leave.isPending}
          >
            Cancel
          </Button>
          <Button variant="danger" onClick={() => leave.mutate({})} disabled={leave.isPending}>
            {leave.isPending ? 'Leaving…' : 'Leave organization'}
          </Button>
        </>
      }
    >
      <p>
        You lose access to its instance keys and private catalog at once, and your personal access tokens for it stop
        working. To come back you need a new invitation.
      </p>
      {leave.error ? (
        <p role="alert" className="text-red-800">
          {forPeople(errorMessage(leave.error))}
        </p>
      ) : null}
    </Dialog>
  );
}
