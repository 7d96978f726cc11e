'use client';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from '../_lib/errors';
import { toastUnlessInline } from '../_lib/form-errors';
import { trpc, type RouterOutputs } from '../_lib/trpc';
import { ConfirmDialog, CopyButton } from '../_components/dialog';
import { Cell, ListTable, Row } from '../_components/list-view';
import { Badge, Button, Card, EmptyState, ErrorState, Field, Input, Loading, Select } from '../_components/ui';
import { RelativeTime } from '../_components/relative-time';

type ApiToken = RouterOutputs['account']['listApiTokens']['tokens'][number];

const TTLS = [
  { value: 900, label: '15 minutes' },
  { value: 3600, label: '1 hour' },
  { value: 8 * 3600, label: '8 hours' },
];

const STATUS: Record<ApiToken['status'], { label: string; tone: 'green' | 'amber' | 'red' | 'neutral' }> = {
  active: { label: 'active', tone: 'green' },
  expired: { label: 'expired', tone: 'neutral' },
  revoked: { label: 'revoked', tone: 'red' },
  signed_out: { label: 'signed out everywhere', tone: 'amber' },
};

const SOURCE: Record<ApiToken['source'], string> = { cli: 'hub token (CLI)', dashboard: 'Dashboard' };

export function ApiAccessCard() {
  const utils = trpc.useUtils();
  const tokens = trpc.account.listApiTokens.useQuery({});
  const [ttl, setTtl] = useState(3600);
  const [label, setLabel] = useState('');
  const [issued, setIssued] = useState<{ token: string; expires_at: string; label: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const refresh = () => utils.account.listApiTokens.invalidate();
  const issue = trpc.dashboard.issueApiToken.useMutation({
    onSuccess: async (data) => {
      setIssued(data);
      setLabel('');
      toast.success('Script token issued');
      await refresh();
    },
    onError: (err) => toastUnlessInline(err, ['label', 'ttl_seconds']),
  });
  const revoke = trpc.account.revokeApiToken.useMutation({
    onSuccess: async () => {
      toast.success(`Script token ${revoking?.label ?? ''} revoked: it no longer works`);
      setRevoking(null);
      await refresh();
    },
    onError: async (err) => {
      setRevoking(null);
      toast.error(`The token could not be revoked: ${errorMessage(err)}`);
      await refresh();
    },
  });
  const errors = fieldErrors(issue.error);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  return (
    <Card
      title="Script tokens"
      description={
        <>
          Short-lived tokens for scripts calling the Hub&apos;s REST API (/api/v1) as you, with your current role. Treat
          them like passwords. Tokens from <code className="font-mono text-xs">hub token</code> on the command line are
          listed here too. Every endpoint is in the{' '}
          <a href="/docs/api" className="text-blue-700 underline underline-offset-2">
            API reference
          </a>
          .
        </>
      }
    >
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          issue.mutate({ ttl_seconds: ttl, ...(label.trim() ? { label: label.trim() } : {}) });
        }}
      >
        <Field id="token-label" label="Name (optional)" error={errors.label} className="min-w-0 flex-1 basis-48">
          <Input
            id="token-label"
            value={label}
            onChange={(e) => setLabel(e.target.value)}
            maxLength={100}
            placeholder="e.g. nightly backup script"
            aria-invalid={errors.label ? true : undefined}
            aria-describedby={errors.label ? 'token-label-error' : undefined}
          />
        </Field>
        <Field id="token-ttl" label="Valid for" error={errors.ttl_seconds}>
          <Select id="token-ttl" value={ttl} onChange={(e) => setTtl(Number(e.target.value))} className="w-40">
            {TTLS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </Select>
        </Field>
        <Button type="submit" variant="secondary" disabled={issue.isPending}>
          {issue.isPending ? 'Issuing…' : 'Issue token'}
        </Button>
      </form>
      {issued ? (
        <div className="mt-4 space-y-2 text-sm" data-testid="api-token">
          <p className="font-medium text-amber-900">
            Copy {issued.label} now: you will not see it again. It expires <RelativeTime value={issued.expires_at} />.
          </p>
          <div className="flex items-start gap-2">
            <code className="block min-w-0 flex-1 rounded-lg border border-zinc-300 bg-zinc-50 px-3 py-2 font-mono text-xs break-all">
              {issued.token}
            </code>
            <CopyButton value={issued.token} what="Script token" />
          </div>
          <p className="text-zinc-700">Example:</p>
          <pre className="rounded-lg bg-zinc-900 p-3 font-mono text-xs break-all whitespace-pre-wrap text-zinc-100">
            {`curl -H "Authorization: Bearer $HUB_TOKEN" ${origin}/api/v1/account/profile`}
          </pre>
        </div>
      ) : null}

      <h3 className="mt-6 mb-2 text-sm font-semibold text-zinc-900">Your script tokens</h3>
      {tokens.isPending ? (
        <Loading rows={2} />
      ) : tokens.isError ? (
        <ErrorState message={errorMessage(tokens.error)} />
      ) : tokens.data.tokens.length === 0 ? (
        <EmptyState title="No script tokens yet">
          Issue one above, or on the command line with <code className="font-mono text-xs">hub token</code>.
        </EmptyState>
      ) : (
        <ListTable
          caption="Script tokens"
          columns={[
            { label: 'Name' },
            { label: 'Issued by' },
            { label: 'Status' },
            { label: 'Created' },
            { label: 'Expires' },
            { label: 'Last used' },
            { label: 'Actions', hidden: true },
          ]}
        >
          {tokens.data.tokens.map((t) => (
            <Row key={t.id} testId={`api-token-row-${t.id}`}>
              <Cell primary className="font-medium">
                {t.label}
              </Cell>
              <Cell label="Issued by">{SOURCE[t.source]}</Cell>
              <Cell label="Status">
                <Badge tone={STATUS[t.status].tone}>{STATUS[t.status].label}</Badge>
              </Cell>
              <Cell label="Created" nowrap>
                <RelativeTime value={t.created_at} />
              </Cell>
              <Cell label="Expires" nowrap>
                <RelativeTime value={t.expires_at} />
              </Cell>
              <Cell label="Last used" nowrap>
                {t.last_used_at ? <RelativeTime value={t.last_used_at} /> : 'never'}
              </Cell>
              <Cell actions>
                {t.status === 'active' ? (
                  <Button
                    size="sm"
                    variant="danger"
                    onClick={() => setRevoking(t)}
                    aria-label={`Revoke script token ${t.label}`}
                  >
                    Revoke
                  </Button>
                ) : null}
              </Cell>
            </Row>
          ))}
        </ListTable>
      )}
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        pending={revoke.isPending}
        title={`Revoke script token ${revoking?.label ?? ''}?`}
        confirmLabel="Revoke token"
      >
        <p>Scripts using it are refused from their next call. This cannot be undone.</p>
      </ConfirmDialog>
    </Card>
  );
}
