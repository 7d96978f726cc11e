import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmButton, ErrorNotice, Field, formatDate, PageHeading, useMe } from '../components';
import { hub, type HubSettings } from '../hub';

/** The Hub connection: where the catalog comes from, and whom the Hub's MCP proxy reaches. */
export function HubPage() {
  const { isAdmin } = useMe();
  // While a sync is pending in the background (just connected), look again every two seconds.
  const settings = useQuery({
    queryKey: ['hub-settings'],
    queryFn: hub.settings,
    refetchInterval: (q) =>
      q.state.data?.configured && !q.state.data.last_sync_at && !q.state.data.last_error ? 2000 : false,
  });
  return (
    <>
      <PageHeading>Hub</PageHeading>
      <p className="muted">
        Core syncs its catalog from the Hub with an instance key and serves MCP to assistants through the Hub’s /mcp.
      </p>
      <ErrorNotice error={settings.error} />
      {settings.data && <Status settings={settings.data} />}
      {isAdmin && settings.data && !(settings.data.configured && settings.data.source === 'environment') && (
        <ConnectForm connected={settings.data.configured} />
      )}
    </>
  );
}

function Status({ settings }: { settings: HubSettings }) {
  const { isAdmin } = useMe();
  const qc = useQueryClient();
  const refresh = () =>
    qc.invalidateQueries({ queryKey: ['hub-settings'] }).then(() => qc.invalidateQueries({ queryKey: ['catalog'] }));
  const sync = useMutation({ mutationFn: hub.sync, onSettled: refresh });
  const disconnect = useMutation({ mutationFn: hub.disconnect, onSuccess: refresh });
  if (!settings.configured) return <p role="status">Not connected to a Hub.</p>;
  const state = settings.key_refused
    ? 'The Hub refused the instance key: sync has stopped. Enter a new key.'
    : settings.connected
      ? 'Connected'
      : settings.last_error
        ? 'Not reachable'
        : 'Connecting…';
  return (
    <section className="panel" aria-label="Hub connection">
      <h2>Connection</h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span role="status">{state}</span>
        </dd>
        <dt>Hub</dt>
        <dd>
          <code>{settings.hub_url}</code>{' '}
          {settings.source === 'environment' && <span className="muted">(from CORE_HUB_URL)</span>}
        </dd>
        <dt>Instance key</dt>
        <dd>
          <code>{settings.key_prefix}…</code>
        </dd>
        <dt>Organization</dt>
        <dd>{settings.organization?.name ?? '—'}</dd>
        <dt>Templates synced</dt>
        <dd>{settings.template_count}</dd>
        <dt>Last sync</dt>
        <dd>{formatDate(settings.last_sync_at, 'never')}</dd>
        {settings.last_error && (
          <>
            <dt>Last error</dt>
            <dd>
              {settings.last_error} ({formatDate(settings.last_error_at)})
            </dd>
          </>
        )}
      </dl>
      {isAdmin && (
        <div className="actions">
          <button type="button" onClick={() => sync.mutate()} disabled={sync.isPending || settings.key_refused}>
            {sync.isPending ? 'Syncing…' : 'Sync now'}
          </button>
          {settings.source === 'settings' && (
            <ConfirmButton
              label="Disconnect"
              subject="from the Hub"
              onConfirm={() => disconnect.mutate()}
              busy={disconnect.isPending}
            />
          )}
        </div>
      )}
      {sync.data && (
        <p role="status">
          Synced: {sync.data.added} added, {sync.data.updated} updated, {sync.data.removed} removed.
        </p>
      )}
      <ErrorNotice error={sync.error ?? disconnect.error} />
    </section>
  );
}

function ConnectForm({ connected }: { connected: boolean }) {
  const qc = useQueryClient();
  const [hubUrl, setHubUrl] = useState('');
  const [key, setKey] = useState('');
  const connect = useMutation({
    mutationFn: () => hub.connect({ hub_url: hubUrl.trim(), instance_key: key.trim() }),
    onSuccess: (data) => {
      setKey('');
      qc.setQueryData(['hub-settings'], data);
      return qc.invalidateQueries({ queryKey: ['hub-settings'] });
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    connect.mutate();
  }
  return (
    <form onSubmit={submit} className="panel grid" aria-label="Connect to a Hub">
      <h2>{connected ? 'Replace the connection' : 'Connect to a Hub'}</h2>
      <Field label="Hub URL">
        {(id) => (
          <input
            id={id}
            type="url"
            required
            placeholder="https://hub.example.com"
            value={hubUrl}
            onChange={(e) => setHubUrl(e.target.value)}
          />
        )}
      </Field>
      <Field
        label="Instance key"
        hint="Created in the Hub dashboard (svh_…). Checked with the Hub now, stored encrypted, never shown again."
      >
        {(id, hint) => (
          <input
            id={id}
            aria-describedby={hint}
            type="password"
            autoComplete="off"
            required
            value={key}
            onChange={(e) => setKey(e.target.value)}
          />
        )}
      </Field>
      <ErrorNotice error={connect.error} />
      <div className="submit">
        <button type="submit" className="primary" disabled={connect.isPending}>
          {connect.isPending ? 'Checking the key…' : 'Connect'}
        </button>
      </div>
    </form>
  );
}
