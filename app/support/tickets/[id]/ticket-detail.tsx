'use client';
import Link from 'next/link';
import { useState } from 'react';
import { toast } from 'sonner';
import {
  Badge,
  Button,
  Card,
  ErrorState,
  Field,
  formatDate,
  Loading,
  PageHeader,
  Select,
  Textarea,
} from '../../../_components/ui';
import { errorMessage, fieldErrors } from '../../../_lib/errors';
import { toastUnlessInline } from '../../../_lib/form-errors';
import { ConfirmDialog } from '../../../_components/dialog';
import { trpc } from '../../../_lib/trpc';
import { SeverityBadge, StatusBadge } from '../../support-ui';
import { RelativeTime } from '../../../_components/relative-time';

const AUTHOR_TONE = { instance: 'violet', user: 'blue', staff: 'green' } as const;
type Status = 'open' | 'pending' | 'closed';

/** The confirmation's question and button for moving ticket #n to `to`. */
function statusChange(n: number, to: Status) {
  if (to === 'closed')
    return {
      title: `Close ticket #${n}?`,
      confirm: 'Close ticket',
      body: 'The ticket is marked as resolved. A reply from the instance or the organization opens it again.',
    };
  if (to === 'pending')
    return {
      title: `Mark ticket #${n} as pending?`,
      confirm: 'Mark as pending',
      body: 'Pending means waiting for the customer. A reply from the instance or the organization opens it again.',
    };
  return {
    title: `Reopen ticket #${n}?`,
    confirm: 'Reopen ticket',
    body: 'The ticket is open again and waits for Hub support.',
  };
}

export function TicketDetail({ id, isAdmin }: { id: string; isAdmin: boolean }) {
  const utils = trpc.useUtils();
  const ticket = trpc.support.dashboardGetTicket.useQuery({ id });
  const [reply, setReply] = useState('');
  // The select only chooses; nothing changes until "Change status" and its confirmation (arrow keys are safe).
  const [draftStatus, setDraftStatus] = useState<Status | null>(null);
  const [confirming, setConfirming] = useState(false);
  const refresh = async () => {
    await Promise.all([
      utils.support.dashboardGetTicket.invalidate({ id }),
      utils.support.dashboardListTickets.invalidate(),
    ]);
  };
  const send = trpc.support.dashboardReplyTicket.useMutation({
    onSuccess: async (r) => {
      setReply('');
      toast.success(r.reopened ? 'Reply sent; the ticket is open again' : 'Reply sent');
      await refresh();
    },
    onError: (err) => toastUnlessInline(err, ['body']),
  });
  const setStatus = trpc.support.setTicketStatus.useMutation({
    onSuccess: async (r) => {
      setConfirming(false);
      setDraftStatus(null);
      toast.success(`Ticket #${r.ticket.number} is now ${r.ticket.status}`);
      await refresh();
    },
    onError: async (err) => {
      setConfirming(false);
      toast.error(`The status could not be changed: ${errorMessage(err)}`);
      await refresh();
    },
  });

  if (ticket.isPending) return <Loading rows={6} />;
  if (ticket.isError) {
    return (
      <ErrorState title="This ticket could not be shown" message={errorMessage(ticket.error)}>
        <p className="mt-2">
          <Link href="/support" className="font-medium underline">
            Back to the tickets
          </Link>
        </p>
      </ErrorState>
    );
  }
  const t = ticket.data.ticket;
  const replyError = send.error ? fieldErrors(send.error).body : undefined;
  const chosen = draftStatus ?? t.status;
  const change = statusChange(t.number, chosen);
  return (
    <div className="space-y-4">
      <PageHeader
        title={`#${t.number} ${t.subject}`}
        description={`${t.organization.name} · ${t.instance?.name ?? 'instance removed'} · opened ${formatDate(t.created_at)}`}
        actions={
          <div className="flex items-center gap-2">
            <StatusBadge status={t.status} />
            <SeverityBadge severity={t.severity} />
          </div>
        }
      />
      {isAdmin ? (
        <Card
          title="Status"
          description="Only platform admins set the status. A reply from the instance or the organization reopens a closed or pending ticket."
        >
          <form
            className="flex max-w-md flex-wrap items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              if (chosen !== t.status) setConfirming(true);
            }}
          >
            <Field id="status" label="New status" className="min-w-0 flex-1 basis-48">
              <Select
                id="status"
                value={chosen}
                disabled={setStatus.isPending}
                onChange={(e) => setDraftStatus(e.target.value as Status)}
              >
                <option value="open">Open</option>
                <option value="pending">Pending (waiting for the customer)</option>
                <option value="closed">Closed</option>
              </Select>
            </Field>
            <Button type="submit" variant="secondary" disabled={chosen === t.status || setStatus.isPending}>
              Change status
            </Button>
          </form>
          <ConfirmDialog
            open={confirming}
            onClose={() => setConfirming(false)}
            onConfirm={() => setStatus.mutate({ id, status: chosen })}
            pending={setStatus.isPending}
            title={change.title}
            confirmLabel={change.confirm}
          >
            <p>{change.body}</p>
          </ConfirmDialog>
        </Card>
      ) : null}
      <Card title="Description">
        <p className="text-sm whitespace-pre-wrap text-zinc-900">{t.body}</p>
        {t.diagnostics ? (
          <details className="mt-4">
            <summary className="cursor-pointer text-sm font-medium text-zinc-800">
              Diagnostics sent by the instance
            </summary>
            <pre className="mt-2 max-h-96 overflow-auto rounded-lg bg-zinc-50 p-3 text-xs text-zinc-900">
              {JSON.stringify(t.diagnostics, null, 2)}
            </pre>
          </details>
        ) : null}
      </Card>
      <Card title={`Conversation (${t.messages.length})`}>
        {t.messages.length === 0 ? <p className="text-sm text-zinc-600">No replies yet.</p> : null}
        <ol className="space-y-3">
          {t.messages.map((m) => (
            <li key={m.id} className="rounded-lg border border-zinc-200 p-3">
              <div className="mb-1 flex flex-wrap items-center gap-2 text-xs text-zinc-600">
                <Badge tone={AUTHOR_TONE[m.author.type]}>
                  {m.author.type === 'staff' ? 'Hub support' : m.author.type}
                </Badge>
                <span className="font-medium text-zinc-800">{m.author.name}</span>
                <span>
                  <RelativeTime value={m.created_at} />
                </span>
              </div>
              <p className="text-sm whitespace-pre-wrap text-zinc-900">{m.body}</p>
            </li>
          ))}
        </ol>
        <form
          className="mt-4 space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            send.mutate({ id, body: reply });
          }}
        >
          <Field
            id="reply"
            label={isAdmin ? 'Reply as Hub support' : 'Reply as your organization'}
            error={replyError}
            hint="Up to 20,000 characters."
          >
            <Textarea
              id="reply"
              rows={5}
              value={reply}
              maxLength={20_000}
              onChange={(e) => setReply(e.target.value)}
              aria-invalid={replyError ? true : undefined}
            />
          </Field>
          <Button type="submit" disabled={send.isPending || reply.trim() === ''}>
            {send.isPending ? 'Sending…' : 'Send reply'}
          </Button>
        </form>
      </Card>
    </div>
  );
}
