/**
 * Core's overview: the Hub connection and its last sync (with the last error), the catalog, deployments by
 * observed state with the container engine, machine-token requests and MCP tool calls over the last 30 days
 * (from the daily rollups), and the latest activity. One request (GET /api/v1/overview) plus the counters of the other pages.
 */
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link } from 'wouter';
import { core } from '../api';
import { ErrorNotice, formatDate, PageHeading, useMe } from '../components';
import type { Overview as OverviewData } from '../types';
import { ActivityTable } from './Activity';
import { OBSERVED_STATES, stateName, toneOf } from '../deploymentStatus';

/** The charts (Recharts) load on their own, after the page's text: the main bundle stays small. */
const Usage = lazy(() => import('./OverviewUsage'));

const KIND: Record<string, string> = {
  local: 'Core account',
  oidc: 'single sign-on',
  temporary_admin: 'temporary admin',
  machine_token: 'machine token',
};

export function Overview() {
  const me = useMe();
  const overview = useQuery({
    queryKey: ['overview'],
    queryFn: () => core.overview({ days: 30 }),
    refetchInterval: 30_000,
  });
  const secrets = useQuery({ queryKey: ['secrets'], queryFn: core.secrets });
  const users = useQuery({ queryKey: ['users', 1, 1], queryFn: () => core.users({ page: 1, limit: 1 }) });
  const tokens = useQuery({ queryKey: ['tokens', 1, 1], queryFn: () => core.tokens({ page: 1, limit: 1 }) });
  const settings = useQuery({ queryKey: ['settings'], queryFn: core.settings });
  const o = overview.data;

  const cards = [
    { href: '/catalog', title: 'Catalog templates', count: o?.catalog.templates },
    { href: '/deployments', title: 'Deployments', count: o?.deployments.total },
    { href: '/secrets', title: 'Secrets', count: secrets.data?.secrets.length },
    { href: '/users', title: 'Users', count: users.data?.pagination.total },
    { href: '/tokens', title: 'Machine tokens', count: tokens.data?.pagination.total },
  ];
  return (
    <>
      <PageHeading>Overview</PageHeading>
      <p>
        Signed in as <strong>{me.user?.email ?? me.token_id}</strong> through {KIND[me.kind] ?? me.kind}, role{' '}
        <strong>{me.role}</strong>
        {me.role === 'readonly' && ': you can read everything except secret values, and change nothing'}.
      </p>
      <ErrorNotice error={overview.error ?? secrets.error ?? users.error ?? tokens.error} />
      <ul className="cards">
        {cards.map((c) => (
          <li key={c.href}>
            <Link href={c.href}>
              <span className="count">{c.count ?? '…'}</span> {c.title}
            </Link>
          </li>
        ))}
      </ul>
      {o && (
        <>
          <div className="overview-grid">
            <HubHealth hub={o.hub} />
            <section className="panel" aria-labelledby="deployments-heading">
              <h2 id="deployments-heading">Deployments by state</h2>
              <EngineLine engine={o.engine} />
              {o.deployments.total === 0 ? (
                <p className="muted">
                  No deployments yet. <Link href="/catalog">Deploy a template from the catalog</Link>.
                </p>
              ) : (
                <dl className="facts">
                  {OBSERVED_STATES.filter((s) => o.deployments.by_observed_state[s] > 0).map((s) => (
                    <div key={s} className="contents">
                      <dt>
                        <span className={`state state-${toneOf(s)}`}>{stateName(s)}</span>
                      </dt>
                      <dd>{o.deployments.by_observed_state[s]}</dd>
                    </div>
                  ))}
                </dl>
              )}
            </section>
          </div>
          <Suspense fallback={<p role="status">Loading the charts…</p>}>
            <Usage o={o} />
          </Suspense>
          <section className="panel" aria-labelledby="recent-heading">
            <div className="row">
              <h2 id="recent-heading">Recent activity</h2>
              <Link href="/activity">All activity</Link>
            </div>
            {o.recent_activity.length === 0 ? (
              <p className="muted">Nothing has been changed yet.</p>
            ) : (
              <ActivityTable entries={o.recent_activity} caption="Latest changes, newest first" />
            )}
          </section>
        </>
      )}
      {settings.data && (
        <p className="muted">
          Core {settings.data.version} · single sign-on{' '}
          {settings.data.oidc.source === 'none' ? 'not configured' : `configured (${settings.data.oidc.source})`}
          {settings.data.temporary_admin.enabled && ' · temporary admin enabled'} ·{' '}
          <a href="/api/v1/reference">API reference</a>
        </p>
      )}
    </>
  );
}

function HubHealth({ hub }: { hub: OverviewData['hub'] }) {
  let state: { text: string; tone: 'active' | 'expired' | 'revoked' };
  if (!hub.configured) state = { text: 'not connected', tone: 'expired' };
  else if (hub.key_refused) state = { text: 'key refused', tone: 'revoked' };
  else if (hub.connected) state = { text: 'connected', tone: 'active' };
  else if (hub.last_error) state = { text: 'not reachable', tone: 'revoked' };
  else state = { text: 'connecting', tone: 'expired' };
  return (
    <section className="panel" aria-labelledby="hub-heading">
      <h2 id="hub-heading">Hub connection</h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`status status-${state.tone}`}>{state.text}</span>
        </dd>
        {hub.configured ? (
          <>
            <dt>Hub</dt>
            <dd>
              <code>{hub.hub_url}</code>
            </dd>
            <dt>Organization</dt>
            <dd>{hub.organization?.name ?? '—'}</dd>
            <dt>Last sync</dt>
            <dd>{formatDate(hub.last_sync_at, 'never')}</dd>
            {hub.last_error && (
              <>
                <dt>Last error</dt>
                <dd className="error-text">
                  {hub.last_error} <span className="muted">({formatDate(hub.last_error_at)})</span>
                </dd>
              </>
            )}
          </>
        ) : (
          <>
            <dt>Catalog</dt>
            <dd>
              <Link href="/hub">Connect to a Hub</Link> to sync the catalog.
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

/** Which engine runs the deployments, and since when it is up, down or absent. */
function EngineLine({ engine }: { engine: OverviewData['engine'] }) {
  if (engine.state === 'none')
    return (
      <p className="muted">
        No container engine: Core keeps the desired state only (<code>CORE_RUNTIME=none</code>, or no engine answered at
        start). Set <code>DOCKER_HOST</code> and restart Core to run deployments.
      </p>
    );
  if (engine.state === 'down')
    return (
      <p role="alert" className="notice error">
        The container engine ({engine.description}) is unreachable since {formatDate(engine.since)}
        {engine.error ? `: ${engine.error}` : ''}. Deployments read unknown; Core catches up when it is back.
      </p>
    );
  return (
    <p className="muted">
      Engine: {engine.description}, up since {formatDate(engine.since)}.
    </p>
  );
}
