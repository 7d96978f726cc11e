'use client';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from '../_lib/errors';
import { toastUnlessInline } from '../_lib/form-errors';
import { trpc, type RouterOutputs } from '../_lib/trpc';
import { ConfirmDialog, SecretDialog } from '../_components/dialog';
import { Cell, ListTable, Row } from '../_components/list-view';
import { Badge, Button, Card, EmptyState, ErrorState, Field, Input, Loading } from '../_components/ui';
import { RelativeTime } from '../_components/relative-time';

type ApiKey = RouterOutputs['account']['listApiKeys']['apiKeys'][number];
type Pending = { kind: 'reissue' | 'revoke'; key: ApiKey } | null;

export function KeysCard({ isOrgAdmin }: { isOrgAdmin: boolean }) {
  const utils = trpc.useUtils();
  const keys = trpc.account.listApiKeys.useQuery({});
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<{ title: string; secret: string; name: string } | null>(null);
  const [pending, setPending] = useState<Pending>(null);

  const refresh = () => utils.account.listApiKeys.invalidate();
  const create = trpc.account.createApiKey.useMutation({
    onSuccess: async (data) => {
      setName('');
      setIssued({ title: 'Instance key created', secret: data.apiKey.key, name: data.apiKey.name });
      await refresh();
    },
    onError: (err) => toastUnlessInline(err, ['name']),
  });
  // On failure the dialog closes and the list is read again: the key may have been revoked meanwhile
  // (elsewhere), and then it offers no action any more.
  const reissue = trpc.account.reissueApiKey.useMutation({
    onSuccess: async (data) => {
      setPending(null);
      setIssued({ title: 'Instance key re-issued', secret: data.apiKey.key, name: data.apiKey.name });
      await refresh();
    },
    onError: async (err) => {
      setPending(null);
      toast.error(`${pending?.key.name ?? 'The key'} could not be re-issued: ${errorMessage(err)}`);
      await refresh();
    },
  });
  const revoke = trpc.account.revokeApiKey.useMutation({
    onSuccess: async () => {
      toast.success(`Key ${pending?.key.name ?? ''} revoked: it no longer works`);
      setPending(null);
      await refresh();
    },
    onError: async (err) => {
      setPending(null);
      toast.error(`${pending?.key.name ?? 'The key'} could not be revoked: ${errorMessage(err)}`);
      await refresh();
    },
  });
  const errors = fieldErrors(create.error);

  return (
    <Card
      title="Instance keys"
      description="Each Core instance authenticates to the Hub with its own key (svh_…), entered in the instance's hub settings."
    >
      {isOrgAdmin ? (
        <form
          className="mb-4 flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name: name.trim() });
          }}
        >
          <Field
            id="key-name"
            label="New key name"
            hint="e.g. the instance's host name"
            error={errors.name}
            className="min-w-0 flex-1"
          >
            <Input
              id="key-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={100}
              aria-invalid={errors.name ? true : undefined}
              aria-describedby={errors.name ? 'key-name-error' : 'key-name-hint'}
            />
          </Field>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create key'}
          </Button>
        </form>
      ) : (
        <p className="mb-4 text-sm text-zinc-600">Only organization admins create, re-issue and revoke keys.</p>
      )}

      {keys.isPending ? (
        <Loading rows={2} />
      ) : keys.isError ? (
        <ErrorState message={errorMessage(keys.error)} />
      ) : keys.data.apiKeys.length === 0 ? (
        <EmptyState title="No instance keys yet">{isOrgAdmin ? 'Create one for each Core instance.' : null}</EmptyState>
      ) : (
        <ListTable
          caption="Instance keys"
          columns={[
            { label: 'Name' },
            { label: 'Key' },
            { label: 'Status' },
            { label: 'Created' },
            { label: 'Last used' },
            ...(isOrgAdmin ? [{ label: 'Actions', hidden: true }] : []),
          ]}
        >
          {keys.data.apiKeys.map((k) => (
            <Row key={k.id} testId={`key-row-${k.name}`}>
              <Cell primary className="font-medium max-sm:text-base">
                {k.name}
              </Cell>
              <Cell label="Key" className="font-mono text-xs">
                {k.key_prefix}…
              </Cell>
              <Cell label="Status">
                <Badge tone={k.status === 'active' ? 'green' : 'red'}>{k.status}</Badge>
              </Cell>
              <Cell label="Created" nowrap>
                <RelativeTime value={k.created_at} />
              </Cell>
              <Cell label="Last used" nowrap>
                {k.last_used_at ? <RelativeTime value={k.last_used_at} /> : 'never'}
              </Cell>
              {isOrgAdmin ? (
                <Cell actions>
                  {/* A revoked key can be neither re-issued nor revoked again: nothing is offered. */}
                  {k.status === 'active' ? (
                    <div className="flex justify-end gap-2 max-sm:pt-1">
                      <Button
                        size="sm"
                        variant="secondary"
                        onClick={() => setPending({ kind: 'reissue', key: k })}
                        aria-label={`Re-issue ${k.name}`}
                      >
                        Re-issue
                      </Button>
                      <Button
                        size="sm"
                        variant="danger"
                        onClick={() => setPending({ kind: 'revoke', key: k })}
                        aria-label={`Revoke ${k.name}`}
                      >
                        Revoke
                      </Button>
                    </div>
                  ) : (
                    <span className="text-xs text-zinc-600">No actions: revoked for good</span>
                  )}
                </Cell>
              ) : null}
            </Row>
          ))}
        </ListTable>
      )}

      <SecretDialog
        open={issued !== null}
        onClose={() => setIssued(null)}
        title={issued?.title ?? ''}
        secret={issued?.secret ?? null}
        what="Instance key"
      >
        <p>
          Enter this key in the hub settings of the Core instance <strong>{issued?.name}</strong>. The Hub stores only a
          hash of it.
        </p>
      </SecretDialog>
      <ConfirmDialog
        open={pending?.kind === 'reissue'}
        onClose={() => setPending(null)}
        onConfirm={() => pending && reissue.mutate({ id: pending.key.id })}
        pending={reissue.isPending}
        title={`Re-issue ${pending?.key.name ?? ''}?`}
        confirmLabel="Re-issue key"
      >
        <p>
          A new secret replaces the current one at once: the instance using the old key is refused until you enter the
          new one.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={pending?.kind === 'revoke'}
        onClose={() => setPending(null)}
        onConfirm={() => pending && revoke.mutate({ id: pending.key.id })}
        pending={revoke.isPending}
        title={`Revoke ${pending?.key.name ?? ''}?`}
        confirmLabel="Revoke key"
      >
        <p>
          The key stops working immediately and for good: a revoked key cannot be re-issued. Create a new key for the
          instance instead.
        </p>
      </ConfirmDialog>
    </Card>
  );
}
