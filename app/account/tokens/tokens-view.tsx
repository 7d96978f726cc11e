'use client';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from '../../_lib/errors';
import { toastUnlessInline } from '../../_lib/form-errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { ConfirmDialog, SecretDialog } from '../../_components/dialog';
import { Cell, ListTable, Row } from '../../_components/list-view';
import {
  Badge,
  Button,
  Card,
  EmptyState,
  ErrorState,
  Field,
  formatDate,
  Input,
  Loading,
  Notice,
  Select,
} from '../../_components/ui';
import { clientConfigs, ConfigBlock } from './connect-guide';
import { RelativeTime } from '../../_components/relative-time';

type Token = RouterOutputs['tokens']['list']['tokens'][number];
type Issued = { title: string; secret: string; name: string; instance: string; expiresAt: string | null };

const EXPIRY = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '180', label: '180 days' },
  { value: '365', label: '365 days' },
  { value: '7', label: '7 days' },
  { value: 'none', label: 'No expiry' },
];

const STATUS: Record<Token['status'], { label: string; tone: 'green' | 'amber' | 'red' | 'neutral' }> = {
  active: { label: 'active', tone: 'green' },
  expired: { label: 'expired', tone: 'amber' },
  revoked: { label: 'revoked', tone: 'red' },
  api_token_ended: { label: 'its script token ended', tone: 'neutral' },
  membership_ended: { label: 'owner left the organization', tone: 'neutral' },
  instance_revoked: { label: 'instance revoked', tone: 'neutral' },
  organization_suspended: { label: 'organization suspended', tone: 'amber' },
};

export function TokensView({ mcpUrl }: { mcpUrl: string }) {
  const utils = trpc.useUtils();
  const profile = trpc.account.getProfile.useQuery({});
  const org = profile.data?.profile.organization ?? null;
  const keys = trpc.account.listApiKeys.useQuery({}, { enabled: org !== null });
  const tokens = trpc.tokens.list.useQuery({});

  const [name, setName] = useState('');
  const [instanceId, setInstanceId] = useState('');
  const [expiry, setExpiry] = useState('90');
  const [issued, setIssued] = useState<Issued | null>(null);
  const [pending, setPending] = useState<{ kind: 'rotate' | 'revoke'; token: Token } | null>(null);

  const refresh = () => utils.tokens.list.invalidate();
  const activeKeys = (keys.data?.apiKeys ?? []).filter((k) => k.status === 'active');
  const chosenInstance = instanceId || activeKeys[0]?.id || '';
  const instanceName = (id: string) => keys.data?.apiKeys.find((k) => k.id === id)?.name ?? id;

  const create = trpc.tokens.create.useMutation({
    onSuccess: async (data) => {
      setName('');
      setIssued({
        title: 'Personal access token created',
        secret: data.token.token,
        name: data.token.name,
        instance: instanceName(data.token.instance_id),
        expiresAt: data.token.expires_at,
      });
      await refresh();
    },
    onError: (err) => toastUnlessInline(err, ['name', 'instance_id', 'expires_in_days']),
  });
  const rotate = trpc.tokens.rotate.useMutation({
    onSuccess: async (data) => {
      setPending(null);
      setIssued({
        title: 'Token rotated',
        secret: data.token.token,
        name: data.token.name,
        instance: instanceName(data.token.instance_id),
        expiresAt: data.token.expires_at,
      });
      await refresh();
    },
    onError: async (err) => {
      setPending(null);
      toast.error(`${pending?.token.name ?? 'The token'} could not be rotated: ${errorMessage(err)}`);
      await refresh();
    },
  });
  const revoke = trpc.tokens.revoke.useMutation({
    onSuccess: async () => {
      toast.success(`Token ${pending?.token.name ?? ''} revoked: it no longer works`);
      setPending(null);
      await refresh();
    },
    onError: async (err) => {
      setPending(null);
      toast.error(`${pending?.token.name ?? 'The token'} could not be revoked: ${errorMessage(err)}`);
      await refresh();
    },
  });
  const errors = fieldErrors(create.error);

  if (profile.isPending) return <Loading label="Loading your tokens…" rows={4} />;
  if (profile.isError)
    return <ErrorState title="Your account could not be loaded" message={errorMessage(profile.error)} />;
  const me = profile.data.profile.id;
  const isOrgAdmin = org?.role === 'admin';

  return (
    <>
      <Card
        title="Mint a token"
        description={
          'A token is bound to one instance and carries no role of its own: the instance applies your roles there. ' +
          'It is shown once; the Hub keeps only a hash.'
        }
      >
        {!org ? (
          <Notice>Join or create an organization to mint tokens for its instances.</Notice>
        ) : keys.isPending ? (
          <Loading rows={1} />
        ) : keys.isError ? (
          <ErrorState message={errorMessage(keys.error)} />
        ) : activeKeys.length === 0 ? (
          <Notice>
            Your organization has no active instance yet. An organization admin creates an instance key on the account
            page.
          </Notice>
        ) : (
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate({
                name: name.trim(),
                instance_id: chosenInstance,
                expires_in_days: expiry === 'none' ? null : Number(expiry),
              });
            }}
          >
            <Field
              id="pat-name"
              label="Name"
              hint="e.g. the assistant and the machine"
              error={errors.name}
              className="min-w-0 flex-1 basis-48"
            >
              <Input
                id="pat-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                required
                maxLength={100}
                aria-invalid={errors.name ? true : undefined}
              />
            </Field>
            <Field id="pat-instance" label="Instance" error={errors.instance_id}>
              <Select
                id="pat-instance"
                value={chosenInstance}
                onChange={(e) => setInstanceId(e.target.value)}
                className="w-56 max-w-full"
                aria-invalid={errors.instance_id ? true : undefined}
              >
                {activeKeys.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.name}
                  </option>
                ))}
              </Select>
            </Field>
            <Field id="pat-expiry" label="Expires after" error={errors.expires_in_days}>
              <Select id="pat-expiry" value={expiry} onChange={(e) => setExpiry(e.target.value)} className="w-36">
                {EXPIRY.map((x) => (
                  <option key={x.value} value={x.value}>
                    {x.label}
                  </option>
                ))}
              </Select>
            </Field>
            <Button type="submit" disabled={create.isPending || !chosenInstance}>
              {create.isPending ? 'Minting…' : 'Mint token'}
            </Button>
          </form>
        )}
      </Card>

      <Card
        title={isOrgAdmin ? 'Tokens of your organization' : 'Your tokens'}
        description={
          isOrgAdmin
            ? 'As an organization admin you see and may revoke every member’s tokens; only a token’s owner may rotate it.'
            : undefined
        }
      >
        {tokens.isPending ? (
          <Loading rows={2} />
        ) : tokens.isError ? (
          <ErrorState message={errorMessage(tokens.error)} />
        ) : tokens.data.tokens.length === 0 ? (
          <EmptyState title="No personal access tokens yet">
            Mint one above, then connect your assistant as shown below.
          </EmptyState>
        ) : (
          <ListTable
            caption="Personal access tokens"
            columns={[
              { label: 'Name' },
              { label: 'Instance' },
              ...(isOrgAdmin ? [{ label: 'Owner' }] : []),
              { label: 'Token' },
              { label: 'Status' },
              { label: 'Expires' },
              { label: 'Last used' },
              { label: 'Actions', hidden: true },
            ]}
          >
            {tokens.data.tokens.map((t) => {
              const mine = t.minter.id === me;
              const status = STATUS[t.status];
              return (
                <Row key={t.id} testId={`pat-row-${t.name}`}>
                  <Cell primary className="font-medium" title={`Created ${formatDate(t.created_at)}`}>
                    {t.name}
                  </Cell>
                  <Cell label="Instance">{t.instance_name}</Cell>
                  {isOrgAdmin ? (
                    <Cell label="Owner" className="break-all">
                      {mine ? 'you' : t.minter.name || t.minter.email}
                    </Cell>
                  ) : null}
                  <Cell label="Token" className="font-mono text-xs">
                    {t.token_prefix}…
                  </Cell>
                  <Cell label="Status">
                    <Badge tone={status.tone}>{status.label}</Badge>
                  </Cell>
                  <Cell label="Expires" nowrap>
                    {t.expires_at ? <RelativeTime value={t.expires_at} /> : 'never'}
                  </Cell>
                  <Cell label="Last used" nowrap>
                    {t.last_used_at ? <RelativeTime value={t.last_used_at} /> : 'never'}
                  </Cell>
                  <Cell actions>
                    <div className="flex justify-end gap-2">
                      {mine && t.status === 'active' ? (
                        <Button
                          size="sm"
                          variant="secondary"
                          onClick={() => setPending({ kind: 'rotate', token: t })}
                          aria-label={`Rotate ${t.name}`}
                        >
                          Rotate
                        </Button>
                      ) : null}
                      {(mine || isOrgAdmin) && t.status !== 'revoked' ? (
                        <Button
                          size="sm"
                          variant="danger"
                          onClick={() => setPending({ kind: 'revoke', token: t })}
                          aria-label={`Revoke ${t.name}`}
                        >
                          Revoke
                        </Button>
                      ) : null}
                    </div>
                  </Cell>
                </Row>
              );
            })}
          </ListTable>
        )}
      </Card>

      <SecretDialog
        open={issued !== null}
        onClose={() => setIssued(null)}
        title={issued?.title ?? ''}
        secret={issued?.secret ?? null}
        what="Personal access token"
      >
        <p>
          <strong>{issued?.name}</strong> reaches the instance <strong>{issued?.instance}</strong>
          {issued?.expiresAt ? ` until ${formatDate(issued.expiresAt)}` : ', without expiry'}. The Hub stores only a
          hash of it.
        </p>
        {issued ? <ConfigBlock {...clientConfigs(mcpUrl, issued.secret)[0]!} /> : null}
      </SecretDialog>
      <ConfirmDialog
        open={pending?.kind === 'rotate'}
        onClose={() => setPending(null)}
        onConfirm={() => pending && rotate.mutate({ id: pending.token.id })}
        pending={rotate.isPending}
        title={`Rotate ${pending?.token.name ?? ''}?`}
        confirmLabel="Rotate token"
      >
        <p>
          A new secret replaces the current one at once: assistants using the old one are refused until you configure
          the new one.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={pending?.kind === 'revoke'}
        onClose={() => setPending(null)}
        onConfirm={() => pending && revoke.mutate({ id: pending.token.id })}
        pending={revoke.isPending}
        title={`Revoke ${pending?.token.name ?? ''}?`}
        confirmLabel="Revoke token"
      >
        <p>
          The token stops working immediately and cannot be restored.
          {pending && pending.token.minter.id !== me ? ` It belongs to ${pending.token.minter.email}.` : ''}
        </p>
      </ConfirmDialog>
    </>
  );
}
