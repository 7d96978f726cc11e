'use client';
/**
 * Invitations addressed to the signed-in user (their verified email): accept or decline. A user who
 * already belongs to an organization can decline, but is not offered Accept (the server would refuse
 * it with 409): they are told to leave their organization first.
 */
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../_lib/errors';
import { trpc, type RouterOutputs } from '../_lib/trpc';
import { ConfirmDialog } from '../_components/dialog';
import { Badge, Button, Card, ErrorState, Loading } from '../_components/ui';
import { RelativeTime } from '../_components/relative-time';

type Received = RouterOutputs['account']['listReceivedInvitations']['invitations'][number];

export function InvitationsCard({ email, currentOrgName }: { email: string; currentOrgName: string | null }) {
  const utils = trpc.useUtils();
  const router = useRouter();
  const invitations = trpc.account.listReceivedInvitations.useQuery({});
  const [declining, setDeclining] = useState<Received | null>(null);
  const accept = trpc.account.acceptInvitation.useMutation({
    onSuccess: async (data) => {
      toast.success(
        `You joined ${data.organization.name} as ${data.organization.role === 'admin' ? 'an admin' : 'a member'}`,
      );
      await utils.invalidate();
      router.refresh();
    },
    onError: async (err) => {
      toast.error(errorMessage(err));
      await utils.account.listReceivedInvitations.invalidate();
    },
  });
  const decline = trpc.account.declineInvitation.useMutation({
    onSuccess: async () => {
      toast.success(`Invitation from ${declining?.organization.name ?? 'the organization'} declined`);
      setDeclining(null);
      await utils.account.listReceivedInvitations.invalidate();
    },
    onError: async (err) => {
      toast.error(errorMessage(err));
      setDeclining(null);
      await utils.account.listReceivedInvitations.invalidate();
    },
  });

  const list = invitations.data?.invitations ?? [];
  // Members of an organization see this card only when someone invites them elsewhere.
  if (currentOrgName && (invitations.isPending || (invitations.isSuccess && list.length === 0))) return null;

  return (
    <Card
      title="Invitations"
      description={
        currentOrgName
          ? `To accept, leave ${currentOrgName} first: you can belong to one organization at a time.`
          : `Organizations invite you by your email, ${email}. Accept to join with the role they chose.`
      }
    >
      {invitations.isPending ? (
        <Loading rows={1} />
      ) : invitations.isError ? (
        <ErrorState message={errorMessage(invitations.error)} />
      ) : list.length === 0 ? (
        <p className="text-sm text-zinc-600">No invitations for you right now.</p>
      ) : (
        <ul aria-label="Invitations for you" className="divide-y divide-zinc-200 rounded-lg border border-zinc-200">
          {list.map((inv) => (
            <li
              key={inv.id}
              className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center sm:justify-between"
              data-testid="received-invitation"
            >
              <div className="min-w-0">
                <p className="font-medium text-zinc-900">
                  {inv.organization.name} <Badge tone={inv.role === 'admin' ? 'violet' : 'neutral'}>{inv.role}</Badge>
                </p>
                <p className="text-xs [overflow-wrap:anywhere] text-zinc-600">
                  {inv.invited_by ? `Invited by ${inv.invited_by.name || inv.invited_by.email}` : 'Invited'} · expires{' '}
                  <RelativeTime value={inv.expires_at} />
                </p>
              </div>
              <div className="flex flex-wrap gap-2">
                {currentOrgName ? null : (
                  <Button
                    size="sm"
                    onClick={() => accept.mutate({ id: inv.id })}
                    disabled={accept.isPending}
                    aria-label={`Accept invitation to ${inv.organization.name}`}
                  >
                    Accept
                  </Button>
                )}
                <Button
                  size="sm"
                  variant="secondary"
                  onClick={() => setDeclining(inv)}
                  disabled={accept.isPending}
                  aria-label={`Decline invitation to ${inv.organization.name}`}
                >
                  Decline
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={declining !== null}
        onClose={() => setDeclining(null)}
        onConfirm={() => declining && decline.mutate({ id: declining.id })}
        pending={decline.isPending}
        title={`Decline the invitation to ${declining?.organization.name ?? ''}?`}
        confirmLabel="Decline invitation"
      >
        <p>The invitation is used up; to join later you need a new one.</p>
      </ConfirmDialog>
    </Card>
  );
}
